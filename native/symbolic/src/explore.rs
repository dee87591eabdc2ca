//! The concolic loop for one method: run it, replay the run symbolically,
//! record the path in the constraint tree, pick an unexplored leaf, solve
//! its path for new inputs, run those, and so on until nothing is left or
//! the budget is spent.
//!
//! This first slice explores static methods whose parameters are primitives.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use testgen_classfile::descriptor::{BaseType, FieldType, MethodDescriptor};
use testgen_classfile::{ClassFile, Member};
use testgen_exec::{BranchOperands, ExecError, Executor, Plan, Statement, TraceEvent, Value};
use z3::ast::{Ast, Float, BV};
use z3::{Params, SatResult, Solver};

use crate::replay::{method_branches, replay, ReplayError};
use crate::tree::{ConstraintTree, Leaf, Node, NodeId};

#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Runs of the method at most.
    pub max_runs: usize,
    /// Time for the whole method.
    pub budget: Duration,
    /// Time for one solver query.
    pub solver_timeout: Duration,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            max_runs: 200,
            budget: Duration::from_secs(10),
            solver_timeout: Duration::from_secs(2),
        }
    }
}

/// The method to explore, as the instrumenter described it.
pub struct Target<'c, 'a> {
    pub class: &'c ClassFile<'a>,
    pub method: &'c Member<'a>,
    /// Binary name of the class, for the executor.
    pub class_name: String,
    pub method_id: i32,
    /// Site id -> bytecode offset, for this method's sites.
    pub sites: BTreeMap<i32, u32>,
}

/// What exploring found, with the self-check figures.
#[derive(Debug, Serialize, Deserialize)]
pub struct Exploration {
    pub tree: ConstraintTree<Vec<Value>>,
    pub runs: usize,
    /// Runs whose inputs came from the solver, aimed at an unexplored leaf.
    pub predicted: usize,
    /// Of those, runs that took the predicted path.
    pub agreed: usize,
    /// Seconds spent in the solver.
    pub solver_seconds: f64,
    /// Every branch event seen: (bytecode offset, outcome label).
    pub observed: Vec<(u32, BranchOperands)>,
    /// Why replaying stopped being possible, if it did.
    pub replay_error: Option<String>,
}

pub fn explore(
    executor: &mut Executor,
    target: &Target<'_, '_>,
    options: &ExploreOptions,
) -> Result<Exploration, ExecError> {
    let started = Instant::now();
    let descriptor_text = target
        .method
        .descriptor(target.class)
        .map_err(|e| ExecError::Protocol(e.to_string()))?;
    let descriptor = MethodDescriptor::parse(&descriptor_text)
        .map_err(|e| ExecError::Protocol(e.to_string()))?;
    let name = target
        .method
        .name(target.class)
        .map_err(|e| ExecError::Protocol(e.to_string()))?;
    let mut found = Exploration {
        tree: ConstraintTree::new(),
        runs: 0,
        predicted: 0,
        agreed: 0,
        solver_seconds: 0.0,
        observed: Vec::new(),
        replay_error: None,
    };
    let mut inputs: Vec<Value> = descriptor.parameters.iter().map(zero).collect();
    let mut aimed: Option<NodeId> = None;
    while found.runs < options.max_runs && started.elapsed() < options.budget {
        let plan = Plan::new(vec![Statement::CallStatic {
            class: target.class_name.clone(),
            name: name.to_string(),
            descriptor: descriptor_text.to_string(),
            args: inputs.clone(),
        }]);
        let outcome = executor.run(&plan)?;
        found.runs += 1;
        let events: Vec<TraceEvent> = outcome
            .trace
            .iter()
            .filter(|thread| thread.thread == "testgen-plan")
            .flat_map(|thread| thread.events.clone())
            .collect();
        let branches = method_branches(&events, target.method_id, &target.sites);
        found.observed.extend(branches.iter().cloned());
        let steps = match replay(target.class, target.method, &branches) {
            Ok(steps) => steps,
            Err(error) => {
                found.replay_error = Some(describe(&error));
                break;
            }
        };
        found.tree.record(&steps, inputs.clone());
        if let Some(leaf) = aimed.take() {
            found.predicted += 1;
            match found.tree.node(leaf) {
                Node::Leaf(Leaf::Unexplored) => {
                    // The model did not take the path it was solved for: the
                    // leaf depends on something not modelled; stop aiming at it.
                    found.tree.settle(leaf, Leaf::NotModelled);
                }
                _ => found.agreed += 1,
            }
        }
        match next_inputs(&mut found, &descriptor, options)? {
            Some((leaf, next)) => {
                aimed = Some(leaf);
                inputs = next;
            }
            None => break,
        }
    }
    Ok(found)
}

/// Solves unexplored leaves, deepest first, until one gives inputs.
fn next_inputs(
    found: &mut Exploration,
    descriptor: &MethodDescriptor<'_>,
    options: &ExploreOptions,
) -> Result<Option<(NodeId, Vec<Value>)>, ExecError> {
    while let Some(leaf) = found.tree.next_unexplored() {
        let clauses: Vec<String> = found
            .tree
            .path_to(leaf)
            .iter()
            .filter_map(|edge| edge.clause.clone())
            .collect();
        let started = Instant::now();
        let solved = solve(descriptor, &clauses, options.solver_timeout);
        found.solver_seconds += started.elapsed().as_secs_f64();
        match solved {
            Solved::Inputs(inputs) => return Ok(Some((leaf, inputs))),
            Solved::Infeasible => found.tree.settle(leaf, Leaf::Infeasible),
            Solved::Unknown => found.tree.settle(leaf, Leaf::TimedOut),
        }
    }
    Ok(None)
}

enum Solved {
    Inputs(Vec<Value>),
    Infeasible,
    Unknown,
}

/// The z3 sort of each parameter and the range the JVM allows it (a
/// boolean is 0 or 1, a char 0 to 65535, ...), as SMT-LIB declarations.
fn declarations(descriptor: &MethodDescriptor<'_>) -> String {
    let mut script = String::new();
    for (index, parameter) in descriptor.parameters.iter().enumerate() {
        let name = format!("arg{index}");
        let (sort, range) = match parameter {
            FieldType::Base(BaseType::Long) => ("(_ BitVec 64)", None),
            FieldType::Base(BaseType::Float) => ("(_ FloatingPoint 8 24)", None),
            FieldType::Base(BaseType::Double) => ("(_ FloatingPoint 11 53)", None),
            FieldType::Base(BaseType::Boolean) => {
                ("(_ BitVec 32)", Some(format!("(bvule {name} #x00000001)")))
            }
            FieldType::Base(BaseType::Char) => {
                ("(_ BitVec 32)", Some(format!("(bvule {name} #x0000ffff)")))
            }
            FieldType::Base(BaseType::Byte) => (
                "(_ BitVec 32)",
                Some(format!(
                    "(and (bvsge {name} #xffffff80) (bvsle {name} #x0000007f))"
                )),
            ),
            FieldType::Base(BaseType::Short) => (
                "(_ BitVec 32)",
                Some(format!(
                    "(and (bvsge {name} #xffff8000) (bvsle {name} #x00007fff))"
                )),
            ),
            _ => ("(_ BitVec 32)", None),
        };
        script.push_str(&format!("(declare-const {name} {sort})\n"));
        if let Some(range) = range {
            script.push_str(&format!("(assert {range})\n"));
        }
    }
    script
}

fn solve(descriptor: &MethodDescriptor<'_>, clauses: &[String], timeout: Duration) -> Solved {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32(
        "timeout",
        timeout.as_millis().min(u128::from(u32::MAX)) as u32,
    );
    solver.set_params(&params);
    let mut script = declarations(descriptor);
    for clause in clauses {
        script.push_str(&format!("(assert {clause})\n"));
    }
    solver.from_string(script);
    match solver.check() {
        SatResult::Unsat => Solved::Infeasible,
        SatResult::Unknown => Solved::Unknown,
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return Solved::Unknown;
            };
            let inputs = descriptor
                .parameters
                .iter()
                .enumerate()
                .map(|(index, parameter)| {
                    let name = format!("arg{index}");
                    let bits = |width| {
                        model
                            .eval(&BV::new_const(name.as_str(), width), true)
                            .and_then(|v| v.as_u64())
                            .unwrap_or(0)
                    };
                    let float_bits = |float: Float| {
                        model
                            .eval(&float, true)
                            .map(|f| f.to_ieee_bv().simplify())
                            .and_then(|v| v.as_u64())
                    };
                    match parameter {
                        FieldType::Base(BaseType::Long) => Value::Long {
                            value: bits(64) as i64,
                        },
                        FieldType::Base(BaseType::Float) => Value::Float {
                            bits: float_bits(Float::new_const_float32(name.as_str()))
                                .unwrap_or(0x7fc0_0000) as u32,
                        },
                        FieldType::Base(BaseType::Double) => Value::Double {
                            bits: float_bits(Float::new_const_double(name.as_str()))
                                .unwrap_or(0x7ff8_0000_0000_0000),
                        },
                        FieldType::Base(base) => narrow(*base, bits(32) as u32 as i32),
                        _ => Value::Null,
                    }
                })
                .collect();
            Solved::Inputs(inputs)
        }
    }
}

fn narrow(base: BaseType, value: i32) -> Value {
    match base {
        BaseType::Boolean => Value::Boolean { value: value != 0 },
        BaseType::Byte => Value::Byte { value: value as i8 },
        BaseType::Short => Value::Short {
            value: value as i16,
        },
        BaseType::Char => Value::Char {
            value: value as u16,
        },
        _ => Value::Int { value },
    }
}

fn zero(parameter: &FieldType<'_>) -> Value {
    match parameter {
        FieldType::Base(BaseType::Long) => Value::Long { value: 0 },
        FieldType::Base(BaseType::Float) => Value::Float { bits: 0 },
        FieldType::Base(BaseType::Double) => Value::Double { bits: 0 },
        FieldType::Base(base) => narrow(*base, 0),
        _ => Value::Null,
    }
}

fn describe(error: &ReplayError) -> String {
    match error {
        ReplayError::Unsupported { offset, opcode } => {
            format!("{opcode} at offset {offset} is not modelled yet")
        }
        ReplayError::Mismatch(text) | ReplayError::Class(text) => text.clone(),
    }
}
