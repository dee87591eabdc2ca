//! Branch distance: how far a branch's operands were from sending it the
//! other way, by the rules of Korel (1990) and Tracey et al. (1998): for
//! `a < b` true it is `a - b + 1` when it failed, for `a == b` it is
//! `|a - b|`, and 0 when the branch went that way. Distances are
//! normalised to `[0, 1)` by `d / (d + 1)` so that one branch's distance
//! never outweighs an approach level.

use testgen_classfile::instruction::opcode::*;
use testgen_exec::{BranchOperands, CompareOperands};
use testgen_project::Condition;

/// How far `left condition right` is from holding (0 when it holds).
fn distance(condition: Condition, left: f64, right: f64) -> f64 {
    if condition.holds(left, right) {
        return 0.0;
    }
    match condition {
        Condition::Eq => (left - right).abs(),
        Condition::Ne => 1.0,
        Condition::Lt | Condition::Gt => (left - right).abs() + 1.0,
        Condition::Ge | Condition::Le => (left - right).abs(),
    }
}

/// `d / (d + 1)`: in `[0, 1)`, growing with `d`.
pub fn normalised(distance: f64) -> f64 {
    if distance.is_nan() {
        return 1.0 - f64::EPSILON;
    }
    distance / (distance + 1.0)
}

/// The normalised distances of a conditional branch to being taken and to
/// falling through, from its operands; `compared`, when the `if` tests the
/// result of an `lcmp`, `fcmp*` or `dcmp*` just before it, gives the
/// operands that comparison saw. `None` for a switch or a mismatch.
pub fn branch(
    opcode: u8,
    operands: &BranchOperands,
    compared: Option<&CompareOperands>,
) -> Option<(f64, f64)> {
    let (relation, left, right) = match (opcode, operands) {
        (IFEQ..=IFLE, BranchOperands::Int { value }) => {
            let relation = Condition::of_opcode(opcode)?;
            match compared.and_then(compared_values) {
                // `cmp(a, b) < 0` holds exactly when `a < b`; NaN makes
                // every relation but `!=` fail, which is what the
                // recorded result already says.
                Some((left, right)) if !left.is_nan() && !right.is_nan() => (relation, left, right),
                _ => (relation, f64::from(*value), 0.0),
            }
        }
        (IF_ICMPEQ..=IF_ICMPLE, BranchOperands::IntPair { left, right }) => (
            Condition::of_opcode(opcode)?,
            f64::from(*left),
            f64::from(*right),
        ),
        (IF_ACMPEQ | IF_ACMPNE, BranchOperands::RefPair { left, right }) => {
            let same = match (left, right) {
                (None, None) => true,
                (Some(l), Some(r)) => l.identity == r.identity && l.class == r.class,
                _ => false,
            };
            let relation = if opcode == IF_ACMPEQ {
                Condition::Eq
            } else {
                Condition::Ne
            };
            (relation, if same { 0.0 } else { 1.0 }, 0.0)
        }
        (IFNULL | IFNONNULL, BranchOperands::Ref { value }) => {
            let relation = if opcode == IFNULL {
                Condition::Eq
            } else {
                Condition::Ne
            };
            (relation, if value.is_none() { 0.0 } else { 1.0 }, 0.0)
        }
        _ => return None,
    };
    Some((
        normalised(distance(relation, left, right)),
        normalised(distance(relation.negated(), left, right)),
    ))
}

/// The normalised distance of a switch on `key` to the case `case`.
pub fn switch_case(key: i32, case: i32) -> f64 {
    normalised((f64::from(key) - f64::from(case)).abs())
}

/// The normalised distances to taken and to falling through of an `ifeq`
/// or `ifne` testing a boolean call that was `to_true` from returning true
/// (a call distance; 0 when it returned true, and then one step from false).
pub fn tested_call(opcode: u8, to_true: f64) -> Option<(f64, f64)> {
    let to_false = if to_true == 0.0 { 1.0 } else { 0.0 };
    let (true_distance, false_distance) = (normalised(to_true), normalised(to_false));
    match opcode {
        // `ifeq` jumps when the call returned false.
        IFEQ => Some((false_distance, true_distance)),
        IFNE => Some((true_distance, false_distance)),
        _ => None,
    }
}

fn compared_values(operands: &CompareOperands) -> Option<(f64, f64)> {
    Some(match *operands {
        // As f64 a long loses precision beyond 2^53: a distance, not an
        // exact difference, is all that is needed.
        CompareOperands::Lcmp { left, right } => (left as f64, right as f64),
        CompareOperands::Fcmpl { left, right } | CompareOperands::Fcmpg { left, right } => (
            f64::from(f32::from_bits(left)),
            f64::from(f32::from_bits(right)),
        ),
        CompareOperands::Dcmpl { left, right } | CompareOperands::Dcmpg { left, right } => {
            (f64::from_bits(left), f64::from_bits(right))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(opcode: u8, left: i32, right: i32) -> (f64, f64) {
        branch(opcode, &BranchOperands::IntPair { left, right }, None).unwrap()
    }

    #[test]
    fn the_way_a_branch_went_is_at_distance_zero_and_the_other_grows_with_the_gap() {
        // 3 < 10 holds: taken at 0, falling through needs 3 >= 10, 7 away.
        assert_eq!(pair(IF_ICMPLT, 3, 10), (0.0, normalised(7.0)));
        // 10 < 10 fails by 1.
        assert_eq!(pair(IF_ICMPLT, 10, 10), (normalised(1.0), 0.0));
        assert_eq!(pair(IF_ICMPEQ, 4, 9), (normalised(5.0), 0.0));
        assert_eq!(pair(IF_ICMPNE, 4, 4), (normalised(1.0), 0.0));
        assert!(pair(IF_ICMPGT, 0, 1000).0 > pair(IF_ICMPGT, 0, 10).0);
        // ifeq against zero
        let zero = |value| branch(IFEQ, &BranchOperands::Int { value }, None).unwrap();
        assert_eq!(zero(0), (0.0, normalised(1.0)));
        assert_eq!(zero(-6), (normalised(6.0), 0.0));
    }

    #[test]
    fn an_if_after_a_comparison_measures_the_compared_values() {
        let lcmp = CompareOperands::Lcmp {
            left: 5_000_000_000,
            right: 5_000_000_100,
        };
        // `if (a >= b)` compiles to lcmp; iflt (jump past the body).
        let (taken, not_taken) =
            branch(IFLT, &BranchOperands::Int { value: -1 }, Some(&lcmp)).unwrap();
        assert_eq!(taken, 0.0);
        assert_eq!(not_taken, normalised(100.0));
        // NaN: the recorded result decides, at the smallest distances.
        let nan = CompareOperands::Dcmpg {
            left: f64::NAN.to_bits(),
            right: 1f64.to_bits(),
        };
        let (taken, not_taken) =
            branch(IFGT, &BranchOperands::Int { value: 1 }, Some(&nan)).unwrap();
        assert_eq!((taken, not_taken), (0.0, normalised(1.0)));
    }

    #[test]
    fn a_tested_call_is_as_far_from_true_as_its_arguments_were() {
        // `if (s.equals("--help"))` compiles to ifeq past the body.
        let (taken, not_taken) = tested_call(IFEQ, 3.0).unwrap();
        assert_eq!((taken, not_taken), (0.0, normalised(3.0)));
        assert!(
            tested_call(IFEQ, 1.5).unwrap().1 < not_taken,
            "closer is less"
        );
        // It returned true: one step from false.
        assert_eq!(tested_call(IFNE, 0.0), Some((0.0, normalised(1.0))));
        assert_eq!(tested_call(IFLT, 0.0), None);
    }

    #[test]
    fn null_and_identity_tests_are_one_step_away_and_switches_by_key() {
        let null = branch(IFNULL, &BranchOperands::Ref { value: None }, None).unwrap();
        assert_eq!(null, (0.0, normalised(1.0)));
        assert_eq!(switch_case(3, 7), normalised(4.0));
        assert_eq!(switch_case(7, 7), 0.0);
        assert!(branch(TABLESWITCH, &BranchOperands::SwitchKey { key: 1 }, None).is_none());
    }
}
