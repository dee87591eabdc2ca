//! Probe events recorded while a plan ran (see PROBE_API.md), decoded from
//! the executor's compact binary form.
//!
//! Site and method ids are the ones the instrumenter assigned; which way a
//! branch went follows from the operands and the opcode at the site.

use serde::{Deserialize, Serialize};

/// The events one thread recorded, in the order it recorded them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadTrace {
    /// The thread's name; the plan's own thread is `testgen-plan`.
    pub thread: String,
    pub events: Vec<TraceEvent>,
    /// Events not recorded because the plan's event budget was spent.
    pub dropped_events: u64,
    /// Some events were dropped (`dropped_events > 0`).
    pub truncated: bool,
}

/// How a method call ended, derived from the events by [`ThreadTrace::method_exits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodExit {
    pub method: i32,
    pub exceptional: bool,
    /// Index of the event at which the exit became known: the `exit` itself,
    /// or the `caught` / `statement` event (or the end of the trace, given as
    /// `events.len()`) where an exception was seen to have left the method.
    pub at: usize,
}

impl ThreadTrace {
    /// Pairs every `enter` with how the call ended. Exceptional exits have no
    /// probe of their own (that would take a new exception handler, hence a
    /// new jump target and stack map frame); they follow from the call
    /// stack: a `caught` in method `m` ends every call above `m`'s, a new
    /// statement or the end of the trace ends every call still open.
    /// `method_of_site` maps a site id to the method it is in (the
    /// instrumenter's site table). On a truncated trace the calls still open
    /// at the end are not reported.
    pub fn method_exits(&self, method_of_site: impl Fn(i32) -> Option<i32>) -> Vec<MethodExit> {
        let mut open: Vec<i32> = Vec::new();
        let mut exits = Vec::new();
        let unwind_until =
            |open: &mut Vec<i32>, keep: Option<i32>, at: usize, exits: &mut Vec<MethodExit>| {
                while let Some(&top) = open.last() {
                    if Some(top) == keep {
                        break;
                    }
                    open.pop();
                    exits.push(MethodExit {
                        method: top,
                        exceptional: true,
                        at,
                    });
                }
            };
        for (at, event) in self.events.iter().enumerate() {
            match *event {
                TraceEvent::Enter { method } => open.push(method),
                TraceEvent::Exit { method } => {
                    // Calls above it that never exited threw into it and were
                    // caught by code without probes (none, normally).
                    if open.contains(&method) {
                        unwind_until(&mut open, Some(method), at, &mut exits);
                        open.pop();
                    }
                    exits.push(MethodExit {
                        method,
                        exceptional: false,
                        at,
                    });
                }
                TraceEvent::Caught { site, .. } => {
                    if let Some(method) = method_of_site(site).filter(|m| open.contains(m)) {
                        unwind_until(&mut open, Some(method), at, &mut exits);
                    }
                }
                TraceEvent::Statement { .. } => unwind_until(&mut open, None, at, &mut exits),
                _ => {}
            }
        }
        if !self.truncated {
            unwind_until(&mut open, None, self.events.len(), &mut exits);
        }
        exits
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TraceEvent {
    /// The executor is about to run statement `statement` (on the plan's
    /// thread only). Events of getters called to summarise results are not
    /// recorded.
    Statement {
        statement: u32,
    },
    Enter {
        method: i32,
    },
    Exit {
        method: i32,
    },
    Athrow {
        site: i32,
        exception: Option<ObjectRef>,
    },
    Caught {
        site: i32,
        exception: Option<ObjectRef>,
    },
    Branch {
        site: i32,
        operands: BranchOperands,
    },
    Compare {
        site: i32,
        operands: CompareOperands,
    },
    /// Before a JDK call whose boolean result the next instruction branches
    /// on (`String.equals`, `startsWith`, `Character.isDigit`, ... on
    /// strings and characters; PROBE_API.md lists them): how far its
    /// arguments were from making it return true (0 when it does), and
    /// the string argument it compared against, when short.
    CallDistance {
        site: i32,
        to_true: f64,
        argument: Option<String>,
    },
    /// A call that left the code under test returned.
    ExternalResult {
        site: i32,
        value: ExternalValue,
    },
    /// `System.exit`, `Runtime.exit` or `Runtime.halt` was called (and
    /// turned into an error that ends the plan).
    ExitCall {
        call: ExitCall,
        status: i32,
    },
}

/// A reference operand: its runtime class and identity hash (never its
/// contents: probes do not call code under test). Null is `None` wherever an
/// `ObjectRef` appears.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRef {
    pub class: String,
    pub identity: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BranchOperands {
    /// `ifeq` .. `ifle`.
    Int { value: i32 },
    /// `if_icmp*`.
    IntPair { left: i32, right: i32 },
    /// `ifnull`, `ifnonnull`.
    Ref { value: Option<ObjectRef> },
    /// `if_acmpeq`, `if_acmpne`.
    RefPair {
        left: Option<ObjectRef>,
        right: Option<ObjectRef>,
    },
    /// `tableswitch`, `lookupswitch`.
    SwitchKey { key: i32 },
}

/// Operands of the comparison instructions the probes replace; floats and
/// doubles as IEEE bits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CompareOperands {
    Lcmp { left: i64, right: i64 },
    Fcmpl { left: u32, right: u32 },
    Fcmpg { left: u32, right: u32 },
    Dcmpl { left: u64, right: u64 },
    Dcmpg { left: u64, right: u64 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExternalValue {
    Void,
    /// int, short, char, byte or boolean, widened to int.
    Int {
        value: i32,
    },
    Long {
        value: i64,
    },
    Float {
        bits: u32,
    },
    Double {
        bits: u64,
    },
    Object {
        value: Option<ObjectRef>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitCall {
    SystemExit,
    RuntimeExit,
    RuntimeHalt,
}

// Event kinds of the binary form; keep in step with Probe.java.
const STATEMENT: u8 = 0;
const ENTER: u8 = 1;
const EXIT: u8 = 2;
const ATHROW: u8 = 3;
const CAUGHT: u8 = 4;
const IF_INT: u8 = 5;
const IF_INT_PAIR: u8 = 6;
const IF_REF: u8 = 7;
const IF_REF_PAIR: u8 = 8;
const SWITCH_KEY: u8 = 9;
const LCMP: u8 = 10;
const FCMPL: u8 = 11;
const FCMPG: u8 = 12;
const DCMPL: u8 = 13;
const DCMPG: u8 = 14;
const RETURNED: u8 = 15;
const RESULT_INT: u8 = 16;
const RESULT_LONG: u8 = 17;
const RESULT_FLOAT: u8 = 18;
const RESULT_DOUBLE: u8 = 19;
const RESULT_OBJECT: u8 = 20;
const SYSTEM_EXIT: u8 = 21;
const RUNTIME_EXIT: u8 = 22;
const RUNTIME_HALT: u8 = 23;
const CALL_DISTANCE: u8 = 24;

/// Bytes per event: kind (u8), site (i32), two operands (i64), big-endian.
const EVENT_SIZE: usize = 21;

/// A thread's tables that events point into: class names of reference
/// operands, and strings call distances compared against.
pub(crate) struct Tables<'t> {
    pub(crate) classes: &'t [String],
    pub(crate) strings: &'t [String],
}

/// Decodes one thread's events.
pub(crate) fn decode(bytes: &[u8], tables: &Tables<'_>) -> Result<Vec<TraceEvent>, String> {
    if !bytes.len().is_multiple_of(EVENT_SIZE) {
        return Err(format!(
            "trace of {} bytes is not a whole number of events",
            bytes.len()
        ));
    }
    bytes
        .chunks_exact(EVENT_SIZE)
        .map(|chunk| {
            let kind = chunk[0];
            let site = i32::from_be_bytes(chunk[1..5].try_into().expect("4 bytes"));
            let a = i64::from_be_bytes(chunk[5..13].try_into().expect("8 bytes"));
            let b = i64::from_be_bytes(chunk[13..21].try_into().expect("8 bytes"));
            decode_event(kind, site, a, b, tables)
        })
        .collect()
}

fn decode_event(
    kind: u8,
    site: i32,
    a: i64,
    b: i64,
    tables: &Tables<'_>,
) -> Result<TraceEvent, String> {
    let reference = |operand: i64| object_ref(operand, tables.classes);
    // Operands hold ints sign-extended and floats as raw bits.
    let int = |operand: i64| operand as i32;
    let branch = |operands| Ok(TraceEvent::Branch { site, operands });
    let compare = |operands| Ok(TraceEvent::Compare { site, operands });
    let result = |value| Ok(TraceEvent::ExternalResult { site, value });
    let exit = |call| {
        Ok(TraceEvent::ExitCall {
            call,
            status: int(a),
        })
    };
    match kind {
        STATEMENT => Ok(TraceEvent::Statement {
            statement: site as u32,
        }),
        ENTER => Ok(TraceEvent::Enter { method: site }),
        EXIT => Ok(TraceEvent::Exit { method: site }),
        ATHROW => Ok(TraceEvent::Athrow {
            site,
            exception: reference(a)?,
        }),
        CAUGHT => Ok(TraceEvent::Caught {
            site,
            exception: reference(a)?,
        }),
        IF_INT => branch(BranchOperands::Int { value: int(a) }),
        IF_INT_PAIR => branch(BranchOperands::IntPair {
            left: int(a),
            right: int(b),
        }),
        IF_REF => branch(BranchOperands::Ref {
            value: reference(a)?,
        }),
        IF_REF_PAIR => branch(BranchOperands::RefPair {
            left: reference(a)?,
            right: reference(b)?,
        }),
        SWITCH_KEY => branch(BranchOperands::SwitchKey { key: int(a) }),
        LCMP => compare(CompareOperands::Lcmp { left: a, right: b }),
        FCMPL => compare(CompareOperands::Fcmpl {
            left: a as u32,
            right: b as u32,
        }),
        FCMPG => compare(CompareOperands::Fcmpg {
            left: a as u32,
            right: b as u32,
        }),
        DCMPL => compare(CompareOperands::Dcmpl {
            left: a as u64,
            right: b as u64,
        }),
        DCMPG => compare(CompareOperands::Dcmpg {
            left: a as u64,
            right: b as u64,
        }),
        RETURNED => result(ExternalValue::Void),
        RESULT_INT => result(ExternalValue::Int { value: int(a) }),
        RESULT_LONG => result(ExternalValue::Long { value: a }),
        RESULT_FLOAT => result(ExternalValue::Float { bits: a as u32 }),
        RESULT_DOUBLE => result(ExternalValue::Double { bits: a as u64 }),
        RESULT_OBJECT => result(ExternalValue::Object {
            value: reference(a)?,
        }),
        SYSTEM_EXIT => exit(ExitCall::SystemExit),
        RUNTIME_EXIT => exit(ExitCall::RuntimeExit),
        RUNTIME_HALT => exit(ExitCall::RuntimeHalt),
        // A string index the table does not hold yet (read while the thread
        // still recorded, after a timeout) is no argument, not an error.
        CALL_DISTANCE => Ok(TraceEvent::CallDistance {
            site,
            to_true: f64::from_bits(a as u64),
            argument: usize::try_from(b)
                .ok()
                .and_then(|index| index.checked_sub(1))
                .and_then(|index| tables.strings.get(index))
                .cloned(),
        }),
        other => Err(format!("unknown trace event kind {other}")),
    }
}

/// A reference operand: 0 for null, else (class index + 1) in the high 32
/// bits and the identity hash in the low 32.
fn object_ref(operand: i64, classes: &[String]) -> Result<Option<ObjectRef>, String> {
    if operand == 0 {
        return Ok(None);
    }
    let index = ((operand as u64) >> 32) as usize;
    let class = index
        .checked_sub(1)
        .and_then(|index| classes.get(index))
        .ok_or_else(|| {
            format!(
                "trace names class #{index}, the table has {}",
                classes.len()
            )
        })?;
    Ok(Some(ObjectRef {
        class: class.clone(),
        identity: operand as i32,
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn exceptional_exits_follow_from_the_call_stack() {
        use super::{MethodExit, ThreadTrace, TraceEvent::*};
        // Method 1 calls 2, which calls 3; 3 throws, 2 does not catch, 1
        // catches at site 10. Then 1 returns; statement 1 calls 4, which throws
        // out of the statement.
        let trace = ThreadTrace {
            thread: "testgen-plan".into(),
            events: vec![
                Statement { statement: 0 },
                Enter { method: 1 },
                Enter { method: 2 },
                Enter { method: 3 },
                Caught {
                    site: 10,
                    exception: None,
                },
                Exit { method: 1 },
                Statement { statement: 1 },
                Enter { method: 4 },
            ],
            dropped_events: 0,
            truncated: false,
        };
        let exits = trace.method_exits(|site| (site == 10).then_some(1));
        let exit = |method, exceptional, at| MethodExit {
            method,
            exceptional,
            at,
        };
        assert_eq!(
            exits,
            vec![
                exit(3, true, 4),
                exit(2, true, 4),
                exit(1, false, 5),
                exit(4, true, 8)
            ]
        );
    }

    use super::*;

    fn event(kind: u8, site: i32, a: i64, b: i64) -> Vec<u8> {
        let mut bytes = vec![kind];
        bytes.extend(site.to_be_bytes());
        bytes.extend(a.to_be_bytes());
        bytes.extend(b.to_be_bytes());
        bytes
    }

    #[test]
    fn decodes_operands() {
        let classes = vec!["java.lang.String".to_string()];
        let string_ref = (1i64 << 32) | 0xdead_beef;
        let mut bytes = event(IF_INT_PAIR, 7, -1, i64::from(i32::MAX));
        bytes.extend(event(IF_REF_PAIR, 8, string_ref, 0));
        bytes.extend(event(FCMPG, 9, i64::from(f32::NAN.to_bits()), 0));
        bytes.extend(event(SYSTEM_EXIT, -1, 3, 0));
        bytes.extend(event(CALL_DISTANCE, 10, 2.5f64.to_bits() as i64, 1));
        bytes.extend(event(CALL_DISTANCE, 11, 0, 5));
        let strings = vec!["--help".to_string()];
        let tables = Tables {
            classes: &classes,
            strings: &strings,
        };
        let events = decode(&bytes, &tables).unwrap();
        assert_eq!(
            events,
            [
                TraceEvent::Branch {
                    site: 7,
                    operands: BranchOperands::IntPair {
                        left: -1,
                        right: i32::MAX
                    }
                },
                TraceEvent::Branch {
                    site: 8,
                    operands: BranchOperands::RefPair {
                        left: Some(ObjectRef {
                            class: "java.lang.String".into(),
                            identity: 0xdead_beef_u32 as i32
                        }),
                        right: None
                    }
                },
                TraceEvent::Compare {
                    site: 9,
                    operands: CompareOperands::Fcmpg {
                        left: f32::NAN.to_bits(),
                        right: 0
                    }
                },
                TraceEvent::ExitCall {
                    call: ExitCall::SystemExit,
                    status: 3
                },
                TraceEvent::CallDistance {
                    site: 10,
                    to_true: 2.5,
                    argument: Some("--help".into())
                },
                // An index past the table (read mid-run) is no argument.
                TraceEvent::CallDistance {
                    site: 11,
                    to_true: 0.0,
                    argument: None
                },
            ]
        );
    }

    #[test]
    fn rejects_bad_input() {
        let tables = Tables {
            classes: &[],
            strings: &[],
        };
        assert!(decode(&[1, 2, 3], &tables).is_err());
        assert!(decode(&event(99, 0, 0, 0), &tables).is_err());
        assert!(decode(&event(IF_REF, 0, 2 << 32, 0), &tables).is_err());
    }
}
