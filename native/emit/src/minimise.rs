//! Keeping the fewest tests that cover what all of them cover.

use std::collections::BTreeSet;

/// Greedy set cover: repeatedly keeps the test that adds the most items not
/// yet covered, until no test adds anything; a test that adds nothing is
/// never kept. Ties go to the lower index. Returns the kept indices in
/// their original order.
pub fn select_covering(coverage: &[BTreeSet<u32>]) -> Vec<usize> {
    select_covering_with_costs(coverage, &vec![0; coverage.len()])
}

/// [`select_covering`] where ties in new items go first to the lower cost
/// (e.g. the number of statements of a test's plan), then to the lower
/// index. `costs` has one entry per test.
pub fn select_covering_with_costs(coverage: &[BTreeSet<u32>], costs: &[usize]) -> Vec<usize> {
    assert_eq!(coverage.len(), costs.len(), "one cost per test");
    let mut covered: BTreeSet<u32> = BTreeSet::new();
    let mut kept = Vec::new();
    let mut remaining: Vec<usize> = (0..coverage.len()).collect();
    loop {
        // The most new items; then the lowest cost; then the lowest index.
        let best = remaining
            .iter()
            .enumerate()
            .map(|(slot, &index)| (coverage[index].difference(&covered).count(), slot, index))
            .filter(|(new, _, _)| *new > 0)
            .min_by(|a, b| {
                b.0.cmp(&a.0)
                    .then(costs[a.2].cmp(&costs[b.2]))
                    .then(a.2.cmp(&b.2))
            });
        let Some((_, slot, index)) = best else {
            break;
        };
        covered.extend(coverage[index].iter().copied());
        kept.push(index);
        remaining.swap_remove(slot);
    }
    kept.sort_unstable();
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(items: &[&[u32]]) -> Vec<BTreeSet<u32>> {
        items.iter().map(|s| s.iter().copied().collect()).collect()
    }

    #[test]
    fn keeps_only_tests_that_add_coverage() {
        let coverage = sets(&[&[1, 2], &[1, 2, 3, 4], &[4], &[5], &[3]]);
        assert_eq!(select_covering(&coverage), [1, 3]);
    }

    #[test]
    fn the_largest_gain_goes_first() {
        let coverage = sets(&[&[1, 2], &[3, 4, 5], &[1, 2, 3, 4]]);
        // {1,2,3,4} first, then {3,4,5} adds 5; {1,2} adds nothing.
        assert_eq!(select_covering(&coverage), [1, 2]);
    }

    #[test]
    fn ties_go_to_the_lower_index() {
        let coverage = sets(&[&[1], &[2], &[1], &[2]]);
        assert_eq!(select_covering(&coverage), [0, 1]);
        let coverage = sets(&[&[7, 8], &[8, 9], &[7, 9]]);
        // All add two; 0 is taken, then 1 and 2 both add 9: 1 wins.
        assert_eq!(select_covering(&coverage), [0, 1]);
    }

    #[test]
    fn ties_go_to_the_cheaper_test_before_the_lower_index() {
        let coverage = sets(&[&[1, 2], &[1, 2], &[3]]);
        assert_eq!(select_covering_with_costs(&coverage, &[5, 2, 9]), [1, 2]);
        assert_eq!(select_covering_with_costs(&coverage, &[2, 2, 9]), [0, 2]);
    }

    #[test]
    fn empty_coverage_keeps_nothing() {
        assert!(select_covering(&[]).is_empty());
        assert!(select_covering(&sets(&[&[], &[]])).is_empty());
    }
}
