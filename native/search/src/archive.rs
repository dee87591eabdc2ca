//! DynaMOSA's bookkeeping (Panichella, Kifetew and Tonella, TSE 2018):
//! the archive of the best test per covered goal, the goals that are
//! targets now (uncovered, and every goal they depend on covered), and
//! the preference sorting that ranks a population on those targets.

use std::collections::{BTreeMap, BTreeSet};

use testgen_project::GoalId;

use crate::fitness::GoalGraph;

/// For each covered goal, the shortest test that covers it: the first to
/// cover it, replaced only by a strictly shorter one.
#[derive(Clone, Debug)]
pub struct Archive<T> {
    best: BTreeMap<GoalId, (T, usize)>,
}

impl<T: Clone> Default for Archive<T> {
    fn default() -> Self {
        Archive {
            best: BTreeMap::new(),
        }
    }
}

impl<T: Clone> Archive<T> {
    /// Offers `test` (of `length` statements) with its fitness per goal;
    /// returns the goals it covered for the first time.
    pub fn offer(&mut self, test: &T, length: usize, fitness: &[f64]) -> Vec<GoalId> {
        let mut first = Vec::new();
        for (index, &value) in fitness.iter().enumerate() {
            if value != 0.0 {
                continue;
            }
            let goal = GoalId(index as u32);
            match self.best.get(&goal) {
                Some((_, kept)) if *kept <= length => {}
                Some(_) => {
                    self.best.insert(goal, (test.clone(), length));
                }
                None => {
                    self.best.insert(goal, (test.clone(), length));
                    first.push(goal);
                }
            }
        }
        first
    }

    pub fn is_covered(&self, goal: GoalId) -> bool {
        self.best.contains_key(&goal)
    }

    pub fn covered(&self) -> impl Iterator<Item = GoalId> + '_ {
        self.best.keys().copied()
    }

    /// The test kept for `goal`.
    pub fn test(&self, goal: GoalId) -> Option<&T> {
        self.best.get(&goal).map(|(test, _)| test)
    }
}

/// The goals search aims at: uncovered goals whose control-dependence
/// parents are all covered (a goal with none is a target from the start),
/// DynaMOSA's way of not chasing a branch nested under one nothing reached.
#[derive(Clone, Debug)]
pub struct Targets {
    children: Vec<Vec<GoalId>>,
    graph: GoalGraph,
    current: BTreeSet<GoalId>,
}

impl Targets {
    /// The first targets of a class with `goals` goals, none covered yet
    /// but those in `covered` (what concolic exploration reached).
    pub fn new(graph: GoalGraph, goals: usize, covered: impl Fn(GoalId) -> bool) -> Targets {
        let mut children = vec![Vec::new(); goals];
        for index in 0..goals {
            let goal = GoalId(index as u32);
            for parent in graph.parents(goal) {
                children[parent.0 as usize].push(goal);
            }
        }
        let mut targets = Targets {
            children,
            graph,
            current: BTreeSet::new(),
        };
        for index in 0..goals {
            let goal = GoalId(index as u32);
            if !covered(goal) && targets.ready(goal, &covered) {
                targets.current.insert(goal);
            }
        }
        targets
    }

    fn ready(&self, goal: GoalId, covered: &impl Fn(GoalId) -> bool) -> bool {
        let parents = self.graph.parents(goal);
        parents.is_empty() || parents.iter().any(|&parent| covered(parent))
    }

    /// Goals just covered stop being targets; their uncovered children
    /// whose parents are now covered become targets.
    pub fn update(&mut self, newly_covered: &[GoalId], covered: impl Fn(GoalId) -> bool) {
        for goal in newly_covered {
            self.current.remove(goal);
            for &child in &self.children[goal.0 as usize] {
                if !covered(child) && self.ready(child, &covered) {
                    self.current.insert(child);
                }
            }
        }
    }

    pub fn current(&self) -> &BTreeSet<GoalId> {
        &self.current
    }

    pub fn is_empty(&self) -> bool {
        self.current.is_empty()
    }
}

/// Ranks a population on the current targets (lower is better): rank 0 for
/// each target's best individual (least fitness, then shortest), as
/// DynaMOSA's preference criterion; the rest by how many targets they are
/// no worse than the others on, approximated by their summed fitness.
pub fn preference_ranks(
    fitness: &[Vec<f64>],
    lengths: &[usize],
    targets: &BTreeSet<GoalId>,
) -> Vec<usize> {
    let count = fitness.len();
    let mut ranks = vec![usize::MAX; count];
    for goal in targets {
        let index = goal.0 as usize;
        let best = (0..count).min_by(|&a, &b| {
            fitness[a][index]
                .total_cmp(&fitness[b][index])
                .then(lengths[a].cmp(&lengths[b]))
        });
        if let Some(best) = best {
            ranks[best] = 0;
        }
    }
    let mut rest: Vec<usize> = (0..count).filter(|&i| ranks[i] != 0).collect();
    let summed = |i: usize| -> f64 { targets.iter().map(|g| fitness[i][g.0 as usize]).sum() };
    rest.sort_by(|&a, &b| summed(a).total_cmp(&summed(b)).then(a.cmp(&b)));
    for (position, individual) in rest.into_iter().enumerate() {
        ranks[individual] = position + 1;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archive_keeps_the_first_cover_until_a_shorter_one_comes() {
        let mut archive = Archive::default();
        assert_eq!(archive.offer(&"long", 5, &[0.0, 0.5, 1.0]), [GoalId(0)]);
        assert_eq!(archive.offer(&"other", 5, &[0.0, 0.0, 1.0]), [GoalId(1)]);
        assert_eq!(archive.test(GoalId(0)), Some(&"long"));
        assert!(archive.offer(&"short", 2, &[0.0, 0.3, 0.2]).is_empty());
        assert_eq!(archive.test(GoalId(0)), Some(&"short"));
        assert_eq!(archive.test(GoalId(1)), Some(&"other"));
        assert!(!archive.is_covered(GoalId(2)));
        assert_eq!(archive.covered().count(), 2);
    }

    #[test]
    fn a_nested_branch_becomes_a_target_once_the_branch_it_depends_on_is_covered() {
        use testgen_classfile::ClassFile;
        use testgen_project::{ClassGoals, ClassName, Outcome};
        let classes = testgen_testkit::compile_fixture("explore");
        let bytes = std::fs::read(classes.join("fixtures/explore/IntRules.class")).unwrap();
        let file = ClassFile::parse(&bytes).unwrap();
        let class = ClassName::internal("fixtures/explore/IntRules");
        let goals = ClassGoals::of(&file, &class);
        let graph = GoalGraph::of(&file, &class, &goals);
        let clamp: Vec<(GoalId, u32, Outcome)> = goals
            .iter()
            .filter(|(_, goal, _)| goal.method.name == "clamp")
            .map(|(id, goal, _)| (id, goal.offset, goal.outcome))
            .collect();
        let first = clamp[0].1;
        let (outer, inner): (Vec<_>, Vec<_>) = clamp.iter().partition(|(_, at, _)| *at == first);
        let mut covered = BTreeSet::new();
        let mut targets = Targets::new(graph, goals.len(), |goal| covered.contains(&goal));
        for (id, _, _) in &outer {
            assert!(targets.current().contains(id));
        }
        for (id, _, _) in &inner {
            assert!(
                !targets.current().contains(id),
                "nested under an uncovered goal"
            );
        }
        // `x >= min` jumps to the second test.
        let (jump, _, _) = outer
            .iter()
            .find(|(_, _, outcome)| *outcome == Outcome::Taken)
            .unwrap();
        covered.insert(*jump);
        targets.update(&[*jump], |goal| covered.contains(&goal));
        assert!(!targets.current().contains(jump));
        for (id, _, _) in &inner {
            assert!(targets.current().contains(id));
        }
    }

    #[test]
    fn preference_puts_each_targets_best_first_and_ties_go_to_the_shorter() {
        let targets: BTreeSet<GoalId> = [GoalId(0), GoalId(1)].into();
        let fitness = vec![
            vec![0.5, 0.9], // best on goal 0, but longer than 2
            vec![0.7, 0.8],
            vec![0.5, 0.95], // ties 0 on goal 0, shorter
            vec![0.9, 0.1],  // best on goal 1
        ];
        let lengths = [4, 1, 2, 3];
        let ranks = preference_ranks(&fitness, &lengths, &targets);
        assert_eq!(ranks[2], 0);
        assert_eq!(ranks[3], 0);
        // The others by their summed fitness on the targets: 1.4 then 1.5.
        assert_eq!(ranks[0], 1);
        assert_eq!(ranks[1], 2);
    }
}
