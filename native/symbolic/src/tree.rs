//! The constraint tree of one method (the JTestCraft thesis' summary of a
//! method): every path explored so far, as a tree of branch decisions.
//!
//! An inner node is a branch instruction reached by the path from the root;
//! each of its edges is one outcome of that branch together with the clause
//! (an SMT-LIB2 formula over the method's inputs) that selects it. Leaves
//! say what is known of the path ending there: not explored yet, covered by
//! a run (with the inputs that covered it), infeasible (the solver proved the
//! clauses contradictory), or timed out (the solver gave up). No path is
//! explored twice, and a path proven infeasible is never tried again.
//!
//! Clauses are stored as text so that a tree can be written to the cache and
//! read back without a solver; the explorer turns them back into z3 terms.
//! Nodes live in one vector and refer to each other by index, so the tree
//! serialises as plain data and its order is deterministic.

use serde::{Deserialize, Serialize};
use testgen_project::{Blocker, Goal, MethodId};

pub use testgen_project::Outcome;

/// Where a decision is made: a bytecode offset in a method (a path runs
/// through constructors and callees as well as the method explored), or,
/// with no method, the explorer's own first choice (which call sequence
/// builds the receiver).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    pub method: Option<MethodId>,
    pub offset: u32,
}

impl Location {
    /// An instruction of a method.
    pub fn of(method: MethodId, offset: u32) -> Location {
        Location {
            method: Some(method),
            offset,
        }
    }

    /// The explorer's choice of a context.
    pub fn context() -> Location {
        Location {
            method: None,
            offset: 0,
        }
    }

    /// The goal of this location's outcome (none for the explorer's choice).
    pub fn goal(&self, outcome: Outcome) -> Option<Goal> {
        Some(Goal {
            method: self.method.clone()?,
            offset: self.offset,
            outcome,
        })
    }
}

/// One decision on a path: the branch instruction (or the instruction that
/// may throw) and its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub at: Location,
    pub outcome: Outcome,
    /// The condition, over the inputs, under which this outcome happens;
    /// `None` when it could not be modelled (it then stays as observed).
    pub clause: Option<String>,
    /// SMT-LIB declarations of variables the clause introduces (the result
    /// of a modelled library call such as `Integer.parseInt`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declares: Vec<String>,
    /// The clause rests on a value observed from a call that is not
    /// modelled (pinned to what this run saw): no proof may use it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub observed: bool,
}

/// An outcome the run did not take, with the clause that would select it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alternative {
    pub outcome: Outcome,
    pub clause: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declares: Vec<String>,
    /// As [`Decision::observed`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub observed: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// One step of an observed path: the decision taken and the alternatives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub taken: Decision,
    pub alternatives: Vec<Alternative>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(pub u32);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Node<I> {
    /// A branch instruction and its outcomes seen or planned so far.
    Branch {
        at: Location,
        edges: Vec<Edge>,
    },
    Leaf(Leaf<I>),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub outcome: Outcome,
    pub clause: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declares: Vec<String>,
    /// As [`Decision::observed`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub observed: bool,
    pub child: NodeId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Leaf<I> {
    /// Known to exist as an alternative, not explored yet.
    Unexplored,
    /// A run took this path with these inputs.
    Covered { inputs: I },
    /// The solver proved the path's clauses contradictory.
    Infeasible,
    /// The solver gave up on the path's clauses.
    TimedOut,
    /// A run went this far and then did not finish within its time limit:
    /// the trace ends here, and the plan is no test.
    Hung,
    /// The path has a clause that could not be modelled (or a run solved
    /// for it went another way): no solver query can aim at it.
    NotModelled { blocker: Blocker },
}

/// How many leaves are in each state: the explorer's self-check figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeStats {
    pub covered: usize,
    pub unexplored: usize,
    pub infeasible: usize,
    pub timed_out: usize,
    pub hung: usize,
    pub not_modelled: usize,
}

/// What recording a path found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The path ends at a leaf that was not covered before.
    NewPath,
    /// The same path was covered before (the new inputs are not kept).
    Repeated,
    /// The run reached a branch where the tree expected another one (for
    /// example because a value was concretised differently); the path is
    /// kept up to there and `at` is the step that disagreed.
    Diverged { at: usize },
}

/// The constraint tree of one method; `I` is how inputs are stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstraintTree<I> {
    nodes: Vec<Node<I>>,
}

impl<I: Clone> Default for ConstraintTree<I> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Clone> ConstraintTree<I> {
    /// A tree that knows nothing yet: one unexplored leaf.
    pub fn new() -> Self {
        ConstraintTree {
            nodes: vec![Node::Leaf(Leaf::Unexplored)],
        }
    }

    pub const ROOT: NodeId = NodeId(0);

    pub fn node(&self, id: NodeId) -> &Node<I> {
        &self.nodes[id.0 as usize]
    }

    fn push(&mut self, node: Node<I>) -> NodeId {
        self.nodes.push(node);
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// Adds the path a run took, with its alternatives as unexplored leaves,
    /// and marks its end covered by `inputs`.
    pub fn record(&mut self, steps: &[Step], inputs: I) -> Recorded {
        self.record_ending(steps, Leaf::Covered { inputs })
    }

    /// Adds the path of a run that did not finish (its trace stops where
    /// the run was stopped): the decisions are real, the end is marked
    /// [`Leaf::Hung`] unless another run covered it.
    pub fn record_hung(&mut self, steps: &[Step]) -> Recorded {
        self.record_ending(steps, Leaf::Hung)
    }

    fn record_ending(&mut self, steps: &[Step], ending: Leaf<I>) -> Recorded {
        let mut at = Self::ROOT;
        for (index, step) in steps.iter().enumerate() {
            if let Node::Leaf(_) = self.node(at) {
                // The first run through here: the leaf becomes the branch.
                self.nodes[at.0 as usize] = Node::Branch {
                    at: step.taken.at.clone(),
                    edges: Vec::new(),
                };
            }
            let Node::Branch { at: location, .. } = self.node(at) else {
                unreachable!()
            };
            if *location != step.taken.at {
                return Recorded::Diverged { at: index };
            }
            at = self.child(
                at,
                step.taken.outcome,
                &step.taken.clause,
                &step.taken.declares,
                step.taken.observed,
            );
            for alternative in &step.alternatives {
                let parent = self.parent_of_step(steps, index);
                self.child(
                    parent,
                    alternative.outcome,
                    &alternative.clause,
                    &alternative.declares,
                    alternative.observed,
                );
            }
        }
        let leaf = &mut self.nodes[at.0 as usize];
        match leaf {
            Node::Leaf(Leaf::Covered { .. }) => Recorded::Repeated,
            Node::Leaf(_) => {
                *leaf = Node::Leaf(ending);
                Recorded::NewPath
            }
            // The run ended where an earlier one went on: the method's
            // behaviour differs between runs for the same decisions.
            Node::Branch { .. } => Recorded::Diverged { at: steps.len() },
        }
    }

    /// The branch node of step `index` of `steps` (already recorded).
    fn parent_of_step(&self, steps: &[Step], index: usize) -> NodeId {
        let mut at = Self::ROOT;
        for step in &steps[..index] {
            at = self.edge(at, step.taken.outcome).expect("recorded").child;
        }
        at
    }

    fn edge(&self, node: NodeId, outcome: Outcome) -> Option<&Edge> {
        match self.node(node) {
            Node::Branch { edges, .. } => edges.iter().find(|edge| edge.outcome == outcome),
            Node::Leaf(_) => None,
        }
    }

    /// The child of `node` for `outcome`, created as an unexplored leaf (or
    /// a not-modelled one, without a clause) if new. Edges stay sorted by
    /// outcome, so the tree does not depend on the order runs arrive in.
    fn child(
        &mut self,
        node: NodeId,
        outcome: Outcome,
        clause: &Option<String>,
        declares: &[String],
        observed: bool,
    ) -> NodeId {
        if let Some(edge) = self.edge(node, outcome) {
            return edge.child;
        }
        let at = self.location(node).cloned();
        let leaf = match (clause, at.as_ref()) {
            (Some(_), _) => Leaf::Unexplored,
            (None, at) => Leaf::NotModelled {
                blocker: not_modelled(at),
            },
        };
        let child = self.push(Node::Leaf(leaf));
        let Node::Branch { edges, .. } = &mut self.nodes[node.0 as usize] else {
            unreachable!()
        };
        let position = edges.partition_point(|edge| edge.outcome < outcome);
        edges.insert(
            position,
            Edge {
                outcome,
                clause: clause.clone(),
                declares: declares.to_vec(),
                observed,
                child,
            },
        );
        child
    }

    /// The clauses from the root to `leaf`: what the inputs must satisfy to
    /// take that path. `None` entries could not be modelled.
    pub fn path_to(&self, leaf: NodeId) -> Vec<&Edge> {
        fn walk<'t, I>(
            tree: &'t ConstraintTree<I>,
            at: NodeId,
            goal: NodeId,
            path: &mut Vec<&'t Edge>,
        ) -> bool {
            if at == goal {
                return true;
            }
            if let Node::Branch { edges, .. } = &tree.nodes[at.0 as usize] {
                for edge in edges {
                    path.push(edge);
                    if walk(tree, edge.child, goal, path) {
                        return true;
                    }
                    path.pop();
                }
            }
            false
        }
        let mut path = Vec::new();
        walk(self, Self::ROOT, leaf, &mut path);
        path
    }

    /// The location of a branch node; `None` for a leaf.
    fn location(&self, node: NodeId) -> Option<&Location> {
        match self.node(node) {
            Node::Branch { at, .. } => Some(at),
            Node::Leaf(_) => None,
        }
    }

    /// The location of the branch whose outcome `leaf` is.
    pub fn parent_location(&self, leaf: NodeId) -> Option<&Location> {
        self.nodes.iter().find_map(|node| match node {
            Node::Branch { at, edges } if edges.iter().any(|e| e.child == leaf) => Some(at),
            _ => None,
        })
    }

    /// Settles `leaf` as not modelled at the branch it belongs to.
    pub fn settle_not_modelled(&mut self, leaf: NodeId) -> Blocker {
        let blocker = not_modelled(self.parent_location(leaf));
        self.settle(
            leaf,
            Leaf::NotModelled {
                blocker: blocker.clone(),
            },
        );
        blocker
    }

    /// Records what solving the path to `leaf` found.
    pub fn settle(&mut self, leaf: NodeId, outcome: Leaf<I>) {
        debug_assert!(matches!(self.node(leaf), Node::Leaf(Leaf::Unexplored)));
        self.nodes[leaf.0 as usize] = Node::Leaf(outcome);
    }

    /// Unexplored leaves, deepest first and, among equals, in tree order: a
    /// simple deterministic strategy (depth-first, as a human would finish
    /// one path's neighbourhood before the next).
    pub fn next_unexplored(&self) -> Option<NodeId> {
        let mut best: Option<(usize, NodeId)> = None;
        let mut stack = vec![(Self::ROOT, 0usize)];
        while let Some((at, depth)) = stack.pop() {
            match self.node(at) {
                Node::Leaf(Leaf::Unexplored) => {
                    if best.is_none_or(|(best_depth, _)| depth > best_depth) {
                        best = Some((depth, at));
                    }
                }
                Node::Leaf(_) => {}
                Node::Branch { edges, .. } => {
                    stack.extend(edges.iter().rev().map(|edge| (edge.child, depth + 1)));
                }
            }
        }
        best.map(|(_, id)| id)
    }

    /// Every unexplored leaf in tree order, with its depth and the branch
    /// outcome that leads to it.
    pub fn unexplored_leaves(&self) -> Vec<(NodeId, usize, Location, Outcome)> {
        let mut found = Vec::new();
        let mut stack = vec![(Self::ROOT, 0usize)];
        while let Some((at, depth)) = stack.pop() {
            if let Node::Branch {
                at: location,
                edges,
            } = self.node(at)
            {
                for edge in edges.iter().rev() {
                    if let Node::Leaf(Leaf::Unexplored) = self.node(edge.child) {
                        found.push((edge.child, depth + 1, location.clone(), edge.outcome));
                    } else {
                        stack.push((edge.child, depth + 1));
                    }
                }
            }
        }
        // The stack visits children in reverse; restore tree order.
        found.sort_by_key(|(id, ..)| *id);
        found
    }

    /// Calls `visit` with every edge: the branch's location, the edge's
    /// outcome, the node it leads to, and whether the path to it (the edge
    /// included) has a clause that rests on an observed value.
    pub fn for_each_edge(&self, visit: impl FnMut(&Location, Outcome, &Node<I>, bool)) {
        self.for_each_edge_marking(|_| false, visit);
    }

    /// As [`ConstraintTree::for_each_edge`], where the flag is also set
    /// below every branch `marked` names (the edge's own branch included):
    /// branches whose clauses a proof may not use for another reason.
    pub fn for_each_edge_marking(
        &self,
        marked: impl Fn(&Location) -> bool,
        mut visit: impl FnMut(&Location, Outcome, &Node<I>, bool),
    ) {
        let mut pending = vec![(Self::ROOT, false)];
        while let Some((id, above)) = pending.pop() {
            if let Node::Branch { at, edges } = self.node(id) {
                let here = above || marked(at);
                for edge in edges {
                    let flagged = here || edge.observed;
                    visit(at, edge.outcome, self.node(edge.child), flagged);
                    pending.push((edge.child, flagged));
                }
            }
        }
    }

    pub fn stats(&self) -> TreeStats {
        let mut stats = TreeStats::default();
        for node in &self.nodes {
            match node {
                Node::Leaf(Leaf::Covered { .. }) => stats.covered += 1,
                Node::Leaf(Leaf::Unexplored) => stats.unexplored += 1,
                Node::Leaf(Leaf::Infeasible) => stats.infeasible += 1,
                Node::Leaf(Leaf::TimedOut) => stats.timed_out += 1,
                Node::Leaf(Leaf::Hung) => stats.hung += 1,
                Node::Leaf(Leaf::NotModelled { .. }) => stats.not_modelled += 1,
                Node::Branch { .. } => {}
            }
        }
        stats
    }

    /// The inputs of every covered path, in tree order (edges sorted by
    /// outcome), which does not depend on the order the runs came in.
    pub fn covering_inputs(&self) -> Vec<&I> {
        let mut found = Vec::new();
        let mut stack = vec![Self::ROOT];
        while let Some(at) = stack.pop() {
            match self.node(at) {
                Node::Leaf(Leaf::Covered { inputs }) => found.push(inputs),
                Node::Leaf(_) => {}
                Node::Branch { edges, .. } => {
                    stack.extend(edges.iter().rev().map(|edge| edge.child))
                }
            }
        }
        found
    }
}

/// Not modelled at the branch `at` (a decision of the explorer's own has
/// no method, and is always modelled).
fn not_modelled(at: Option<&Location>) -> Blocker {
    match at.and_then(|at| Some((at.method.clone()?, at.offset))) {
        Some((method, offset)) => Blocker::NotModelled {
            at: testgen_project::Site { method, offset },
        },
        None => Blocker::ReplayDiverged {
            at: None,
            detail: "a decision without a method".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(offset: u32, taken: Outcome, other: Outcome) -> Step {
        Step {
            taken: Decision {
                at: Location::of(MethodId::of("p/C", "m", "()V"), offset),
                outcome: taken,
                clause: Some(format!("(c{offset} {taken:?})")),
                declares: Vec::new(),
                observed: false,
            },
            alternatives: vec![Alternative {
                outcome: other,
                clause: Some(format!("(c{offset} {other:?})")),
                declares: Vec::new(),
                observed: false,
            }],
        }
    }

    #[test]
    fn edges_below_a_clause_that_rests_on_an_observed_value_say_so() {
        // A branch on what a call returned (at 2), then one on the inputs.
        let mut on_observed = step(2, Outcome::Taken, Outcome::NotTaken);
        on_observed.taken.observed = true;
        on_observed.alternatives[0].observed = true;
        let mut tree: ConstraintTree<Vec<i32>> = ConstraintTree::new();
        tree.record(
            &[on_observed, step(9, Outcome::Taken, Outcome::NotTaken)],
            vec![1],
        );
        let mut seen = Vec::new();
        tree.for_each_edge(|at, outcome, _, observed| seen.push((at.offset, outcome, observed)));
        seen.sort_by_key(|(offset, outcome, _)| (*offset, *outcome));
        assert_eq!(
            seen,
            [
                (2, Outcome::Taken, true),
                (2, Outcome::NotTaken, true),
                (9, Outcome::Taken, true),
                (9, Outcome::NotTaken, true),
            ]
        );
        let mut tree: ConstraintTree<Vec<i32>> = ConstraintTree::new();
        tree.record(&[step(9, Outcome::Taken, Outcome::NotTaken)], vec![1]);
        tree.for_each_edge(|_, _, _, observed| assert!(!observed));
    }

    #[test]
    fn records_paths_and_offers_their_alternatives() {
        // clamp(x, min, max): branch at 2 (x < min), then at 9 (x > max).
        let mut tree: ConstraintTree<Vec<i32>> = ConstraintTree::new();
        let first = [
            step(2, Outcome::Taken, Outcome::NotTaken),
            step(9, Outcome::Taken, Outcome::NotTaken),
        ];
        assert_eq!(tree.record(&first, vec![5, 0, 10]), Recorded::NewPath);
        assert_eq!(
            tree.stats(),
            TreeStats {
                covered: 1,
                unexplored: 2,
                ..TreeStats::default()
            }
        );
        assert_eq!(tree.record(&first, vec![6, 0, 10]), Recorded::Repeated);

        // Deepest first: the sibling at offset 9.
        let next = tree.next_unexplored().unwrap();
        let clauses: Vec<_> = tree
            .path_to(next)
            .iter()
            .map(|e| e.clause.clone().unwrap())
            .collect();
        assert_eq!(clauses, ["(c2 Taken)", "(c9 NotTaken)"]);
        tree.settle(next, Leaf::Infeasible);

        let next = tree.next_unexplored().unwrap();
        assert_eq!(tree.path_to(next).len(), 1);
        let second = [step(2, Outcome::NotTaken, Outcome::Taken)];
        assert_eq!(tree.record(&second, vec![-1, 0, 10]), Recorded::NewPath);
        assert_eq!(tree.next_unexplored(), None);
        assert_eq!(
            tree.stats(),
            TreeStats {
                covered: 2,
                infeasible: 1,
                ..TreeStats::default()
            }
        );
        assert_eq!(tree.covering_inputs(), [&vec![5, 0, 10], &vec![-1, 0, 10]]);
    }

    #[test]
    fn a_run_that_disagrees_with_the_tree_is_a_divergence() {
        let mut tree: ConstraintTree<()> = ConstraintTree::new();
        tree.record(
            &[
                step(2, Outcome::Taken, Outcome::NotTaken),
                step(9, Outcome::Taken, Outcome::NotTaken),
            ],
            (),
        );
        let other = [
            step(2, Outcome::Taken, Outcome::NotTaken),
            step(14, Outcome::Taken, Outcome::NotTaken),
        ];
        assert_eq!(tree.record(&other, ()), Recorded::Diverged { at: 1 });
        // A run that stops where another went on diverges too.
        assert_eq!(tree.record(&other[..1], ()), Recorded::Diverged { at: 1 });
    }

    #[test]
    fn unmodelled_alternatives_are_not_offered_to_the_solver() {
        let mut tree: ConstraintTree<()> = ConstraintTree::new();
        let step = Step {
            taken: Decision {
                at: Location::of(MethodId::of("p/C", "m", "()V"), 4),
                outcome: Outcome::Proceeds,
                clause: None,
                declares: Vec::new(),
                observed: false,
            },
            alternatives: vec![Alternative {
                outcome: Outcome::Throws,
                clause: None,
                declares: Vec::new(),
                observed: false,
            }],
        };
        tree.record(&[step], ());
        assert_eq!(tree.next_unexplored(), None);
        assert_eq!(tree.stats().not_modelled, 1);
    }

    #[test]
    fn the_same_runs_in_another_order_give_the_same_tree() {
        let a = [step(2, Outcome::Taken, Outcome::NotTaken)];
        let b = [step(2, Outcome::NotTaken, Outcome::Taken)];
        let mut one: ConstraintTree<u8> = ConstraintTree::new();
        one.record(&a, 1);
        one.record(&b, 2);
        let mut two: ConstraintTree<u8> = ConstraintTree::new();
        two.record(&b, 2);
        two.record(&a, 1);
        assert_eq!(one.stats(), two.stats());
        assert_eq!(one.covering_inputs(), two.covering_inputs());
    }

    #[test]
    fn a_tree_survives_serialisation() {
        let mut tree: ConstraintTree<Vec<i64>> = ConstraintTree::new();
        tree.record(&[step(2, Outcome::Case(7), Outcome::Default)], vec![7]);
        let text = serde_json::to_string(&tree).unwrap();
        let back: ConstraintTree<Vec<i64>> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, tree);
    }
}
