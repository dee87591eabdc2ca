//! Values a person would write. The solver answers a path condition with
//! whatever model it finds first: an owner `"\u0000"`, a balance of
//! `3026489318337141008L`. Once a test is chosen and shrunk, each such
//! literal is replaced in turn by readable candidates (printable text of
//! the same length, small numbers of the same sign), and a candidate is
//! kept when the plan still ends the same way (completes, or throws the
//! same exception at the same statement) and covers at least what it
//! covered. A value only the odd one takes its path with stays.

use std::collections::BTreeSet;

use testgen_exec::{ExecError, Plan, PlanOutcome, PlanStatus, Statement, StatementOutcome, Value};

use super::runner::PlanRunner;
use super::shrink::for_each_value;

/// Runs spent on one plan at most: a few per unreadable value.
const MAX_TRIALS: usize = 32;

/// Numbers from this magnitude on are hard to read (the boundaries
/// `Integer.MAX_VALUE` and kin are written by name and stay).
const LARGE: u64 = 10_000;

/// `plan` with its unreadable literals replaced where a readable one does
/// the same; `measure` gives the coverage of an outcome. Stops trying
/// when `out_of_time` says so.
pub fn readable_values(
    runner: &mut PlanRunner<'_, '_>,
    plan: Plan,
    first: PlanOutcome,
    measure: impl Fn(&PlanOutcome) -> BTreeSet<u32>,
    out_of_time: impl Fn() -> bool,
) -> Result<(Plan, PlanOutcome), ExecError> {
    let coverage = measure(&first);
    let expected = ending(&first);
    if expected.is_err() {
        return Ok((plan, first));
    }
    let (mut plan, mut first) = (plan, first);
    let mut trials = 0;
    let places: Vec<(usize, usize)> = literal_places(&plan);
    'places: for (statement, position) in places {
        let Some(value) = value_at(&plan, statement, position) else {
            continue;
        };
        for candidate in candidates(&value) {
            if trials >= MAX_TRIALS || out_of_time() {
                break 'places;
            }
            trials += 1;
            let mut trial = plan.clone();
            replace(&mut trial, statement, position, &candidate);
            let outcome = runner.run(&trial)?;
            if ending(&outcome) == expected && measure(&outcome).is_superset(&coverage) {
                plan = trial;
                first = outcome;
                continue 'places;
            }
        }
    }
    Ok((plan, first))
}

/// How a run ended: completed (`None`), or the statement that threw and
/// the exception's class; `Err` for anything a test cannot show.
fn ending(outcome: &PlanOutcome) -> Result<Option<(usize, String)>, ()> {
    match &outcome.status {
        PlanStatus::Completed => Ok(None),
        PlanStatus::Exception { statement } => match outcome.statements.get(*statement) {
            Some(StatementOutcome::Threw { exception }) => {
                Ok(Some((*statement, exception.class.clone())))
            }
            _ => Err(()),
        },
        _ => Err(()),
    }
}

/// Where the plan's unreadable literals are: (statement, argument place).
fn literal_places(plan: &Plan) -> Vec<(usize, usize)> {
    let mut places = Vec::new();
    for (index, statement) in plan.statements.iter().enumerate() {
        for (position, value) in values(statement).iter().enumerate() {
            if !candidates(value).is_empty() {
                places.push((index, position));
            }
        }
    }
    places
}

/// The values a statement passes, in [`for_each_value`]'s order.
fn values(statement: &Statement) -> Vec<Value> {
    let mut values = Vec::new();
    for_each_value(&mut statement.clone(), &mut |value| {
        values.push(value.clone())
    });
    values
}

fn value_at(plan: &Plan, statement: usize, position: usize) -> Option<Value> {
    values(plan.statements.get(statement)?)
        .into_iter()
        .nth(position)
}

fn replace(plan: &mut Plan, statement: usize, position: usize, new: &Value) {
    let Some(statement) = plan.statements.get_mut(statement) else {
        return;
    };
    let mut at = 0;
    for_each_value(statement, &mut |value| {
        if at == position {
            *value = new.clone();
        }
        at += 1;
    });
}

fn printable(unit: u16) -> bool {
    (0x20..=0x7e).contains(&unit)
}

/// Readable replacements for `value`, best first; none when it reads well.
fn candidates(value: &Value) -> Vec<Value> {
    let whole = |values: &[i64], v: i64| -> Vec<i64> {
        if v.unsigned_abs() < LARGE || v == i64::MIN || v == i64::MAX {
            return Vec::new();
        }
        values.iter().map(|small| small * v.signum()).collect()
    };
    const SMALL: [i64; 7] = [1, 2, 10, 100, 1000, 9999, 0];
    match value {
        Value::String { value } => {
            let units = value.to_utf16();
            if units.iter().all(|&u| printable(u)) {
                return Vec::new();
            }
            // The same length, each unprintable unit a letter.
            let letters: Vec<u16> = units
                .iter()
                .enumerate()
                .map(|(i, &u)| {
                    if printable(u) {
                        u
                    } else {
                        u16::from(b'a') + (i % 26) as u16
                    }
                })
                .collect();
            vec![Value::String {
                value: testgen_exec::JavaString::from_utf16(letters),
            }]
        }
        Value::Char { value } if !printable(*value) => [b'a', b'0', b' ']
            .iter()
            .map(|&c| Value::Char {
                value: u16::from(c),
            })
            .collect(),
        Value::Int { value } if *value != i32::MIN && *value != i32::MAX => {
            whole(&SMALL, i64::from(*value))
                .into_iter()
                .map(|v| Value::Int { value: v as i32 })
                .collect()
        }
        Value::Long { value } => whole(&SMALL, *value)
            .into_iter()
            .map(|v| Value::Long { value: v })
            .collect(),
        Value::Short { value } if *value != i16::MIN && *value != i16::MAX => {
            whole(&SMALL, i64::from(*value))
                .into_iter()
                .map(|v| Value::Short { value: v as i16 })
                .collect()
        }
        Value::Double { bits } if hard_to_read(f64::from_bits(*bits)) => {
            let sign = f64::from_bits(*bits).signum();
            [1.0, 0.5, 2.0, 10.0, 100.0, 0.0]
                .iter()
                .map(|small| Value::double(small * sign))
                .collect()
        }
        Value::Float { bits } if hard_to_read(f64::from(f32::from_bits(*bits))) => {
            let sign = f32::from_bits(*bits).signum();
            [1.0f32, 0.5, 2.0, 10.0, 100.0, 0.0]
                .iter()
                .map(|small| Value::float(small * sign))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// A finite number a person would not write: huge, tiny, or with many
/// significant digits (`1.0000000000000002`).
fn hard_to_read(v: f64) -> bool {
    if !v.is_finite() || v == 0.0 {
        return false;
    }
    let magnitude = v.abs();
    if !(1e-3..1e6).contains(&magnitude) {
        return true;
    }
    let text = format!("{magnitude}");
    text.chars().filter(char::is_ascii_digit).count() > 7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_literals_get_readable_candidates_and_readable_ones_none() {
        let text = |s: &str| Value::string(s);
        assert!(candidates(&text("abc")).is_empty());
        assert_eq!(
            candidates(&Value::String {
                value: testgen_exec::JavaString::from_utf16(vec![0, u16::from(b'x'), 0xffff]),
            }),
            [text("axc")]
        );
        assert!(candidates(&Value::Int { value: 9999 }).is_empty());
        assert!(candidates(&Value::Int { value: i32::MAX }).is_empty());
        assert!(candidates(&Value::Long { value: i64::MIN }).is_empty());
        assert_eq!(
            candidates(&Value::Long {
                value: -9_205_357_638_345_293_824
            })[0],
            Value::Long { value: -1 }
        );
        assert_eq!(
            candidates(&Value::Char { value: 0 })[0],
            Value::Char {
                value: u16::from(b'a')
            }
        );
        assert!(candidates(&Value::double(0.25)).is_empty());
        assert!(candidates(&Value::double(f64::NAN)).is_empty());
        assert_eq!(candidates(&Value::double(-1e300))[0], Value::double(-1.0));
    }

    #[test]
    fn a_value_is_found_and_replaced_at_its_place() {
        let mut plan = Plan::new(vec![Statement::PutField {
            class: "a.B".into(),
            name: "f".into(),
            receiver: None,
            value: Value::Long { value: 123_456_789 },
        }]);
        assert_eq!(literal_places(&plan), [(0, 0)]);
        replace(&mut plan, 0, 0, &Value::Long { value: 1 });
        assert_eq!(value_at(&plan, 0, 0), Some(Value::Long { value: 1 }));
    }
}
