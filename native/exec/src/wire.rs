//! The JSON lines exchanged with the executor JVM (PROTOCOL.md): requests
//! as written, answers as read before they become the public types.

use serde::{Deserialize, Serialize};

use crate::base64;
use crate::conditions::Environment;
use crate::executor::GettersWithEffects;
use crate::outcome::{Access, Captured, PlanOutcome, PlanStatus, StatementOutcome, VerifyOutcome};
use crate::plan::Plan;
use crate::trace::{self, ThreadTrace};

#[derive(Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Request<'a> {
    Ping {
        id: u64,
    },
    Define {
        id: u64,
        classes: Vec<WireClass<'a>>,
        /// Per class (binary name): getters the executor must not call
        /// when it describes a value; replaces what was sent before.
        getters_with_effects: &'a GettersWithEffects,
    },
    Run {
        id: u64,
        timeout_ms: u64,
        fresh_loader: bool,
        trace_limit: u32,
        summary_depth: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        environment: Option<&'a Environment>,
        plan: &'a Plan,
    },
    Verify {
        id: u64,
        classes: Vec<WireClass<'a>>,
    },
    Shutdown {
        id: u64,
    },
}

#[derive(Serialize)]
pub(crate) struct WireClass<'a> {
    name: &'a str,
    /// base64 of the class file.
    bytes: String,
}

impl<'a> WireClass<'a> {
    pub(crate) fn list(classes: &'a [(String, Vec<u8>)]) -> Vec<WireClass<'a>> {
        classes
            .iter()
            .map(|(name, bytes)| WireClass {
                name,
                bytes: base64::encode(bytes),
            })
            .collect()
    }
}

/// What every answer has: the request's id, and an error if the executor
/// could not make sense of the request.
#[derive(Deserialize)]
pub(crate) struct Header {
    pub id: u64,
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct VerifyAnswer {
    pub results: Vec<VerifyOutcome>,
}

#[derive(Deserialize)]
pub(crate) struct RunAnswer {
    status: WireStatus,
    statements: Vec<StatementOutcome>,
    /// Set when the exit was seen only by the shutdown hook: the statement
    /// that was running, whose exit status is the JVM's.
    #[serde(default)]
    exit_statement: Option<usize>,
    stdout: Captured,
    stderr: Captured,
    accesses: Vec<Access>,
    accesses_truncated: bool,
    leftover_threads: Vec<String>,
    #[serde(default)]
    closed_streams: Vec<String>,
    trace: Vec<WireTrace>,
    elapsed_micros: u64,
    pub restart: bool,
}

/// `PlanStatus`, except that an exit seen only by the shutdown hook has no
/// status (the JVM's exit status tells it).
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum WireStatus {
    Completed,
    Exception { statement: usize },
    Invalid { statement: usize },
    TimedOut,
    OutOfMemory,
    ExitRequested { status: Option<i32> },
}

#[derive(Deserialize)]
struct WireTrace {
    thread: String,
    /// base64 of the binary events (see trace.rs).
    events: String,
    classes: Vec<String>,
    #[serde(default)]
    strings: Vec<String>,
    dropped_events: u64,
}

impl RunAnswer {
    /// The public outcome; `exit_status` is the JVM's, when it exited.
    pub(crate) fn into_outcome(self, exit_status: Option<i32>) -> Result<PlanOutcome, String> {
        let mut statements = self.statements;
        let status = match self.status {
            WireStatus::Completed => PlanStatus::Completed,
            WireStatus::Exception { statement } => PlanStatus::Exception { statement },
            WireStatus::Invalid { statement } => PlanStatus::Invalid { statement },
            WireStatus::TimedOut => PlanStatus::TimedOut,
            WireStatus::OutOfMemory => PlanStatus::OutOfMemory,
            WireStatus::ExitRequested {
                status: Some(status),
            } => PlanStatus::ExitRequested { status },
            WireStatus::ExitRequested { status: None } => {
                let status = exit_status.unwrap_or(-1);
                if let Some(StatementOutcome::ExitRequested {
                    status: placeholder,
                }) = self
                    .exit_statement
                    .and_then(|index| statements.get_mut(index))
                {
                    *placeholder = status;
                }
                PlanStatus::ExitRequested { status }
            }
        };
        let trace = self
            .trace
            .into_iter()
            .map(|wire| {
                let bytes = base64::decode(&wire.events)?;
                Ok(ThreadTrace {
                    events: trace::decode(
                        &bytes,
                        &trace::Tables {
                            classes: &wire.classes,
                            strings: &wire.strings,
                        },
                    )?,
                    thread: wire.thread,
                    dropped_events: wire.dropped_events,
                    truncated: wire.dropped_events > 0,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(PlanOutcome {
            status,
            statements,
            stdout: self.stdout,
            stderr: self.stderr,
            accesses: self.accesses,
            accesses_truncated: self.accesses_truncated,
            leftover_threads: self.leftover_threads,
            closed_streams: self.closed_streams,
            trace,
            elapsed_micros: self.elapsed_micros,
            restarted: self.restart,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Statement;

    #[test]
    fn run_requests_carry_the_plan() {
        let plan = Plan::new(vec![Statement::NewArray {
            element: "I".into(),
            length: 2,
        }]);
        let json = serde_json::to_string(&Request::Run {
            id: 7,
            timeout_ms: 500,
            fresh_loader: true,
            trace_limit: 10,
            summary_depth: 2,
            environment: None,
            plan: &plan,
        })
        .unwrap();
        assert_eq!(
            json,
            r#"{"op":"run","id":7,"timeout_ms":500,"fresh_loader":true,"trace_limit":10,"summary_depth":2,"plan":{"statements":[{"op":"new_array","element":"I","length":2}]}}"#
        );
        let turkish = Environment {
            locale: Some("tr-TR".into()),
            ..Environment::unchanged()
        };
        let json = serde_json::to_string(&Request::Run {
            id: 8,
            timeout_ms: 500,
            fresh_loader: false,
            trace_limit: 10,
            summary_depth: 2,
            environment: Some(&turkish),
            plan: &plan,
        })
        .unwrap();
        assert!(
            json.contains(r#""environment":{"locale":"tr-TR"},"plan""#),
            "{json}"
        );
    }

    #[test]
    fn an_exit_seen_by_the_hook_takes_the_jvm_status() {
        let answer: RunAnswer = serde_json::from_str(
            r#"{"id":1,"status":{"kind":"exit_requested"},
                "statements":[{"kind":"void"},{"kind":"exit_requested","status":0},{"kind":"not_run"}],
                "exit_statement":1,
                "stdout":{"text":"","total_bytes":0,"truncated":false},
                "stderr":{"text":"","total_bytes":0,"truncated":false},
                "accesses":[],"accesses_truncated":false,"leftover_threads":[],"trace":[],
                "elapsed_micros":5,"restart":true}"#,
        )
        .unwrap();
        let outcome = answer.into_outcome(Some(42)).unwrap();
        assert_eq!(outcome.status, PlanStatus::ExitRequested { status: 42 });
        assert_eq!(
            outcome.statements[1],
            StatementOutcome::ExitRequested { status: 42 }
        );
        assert!(outcome.restarted);
    }
}
