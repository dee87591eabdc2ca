//! Tests for one class: explore each of its public methods and
//! constructors, run every covering plan, keep a covering subset, emit the
//! JUnit class and validate it with javac and JUnit.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use testgen_classfile::access::AccessFlags;
use testgen_classfile::attribute::AttributeInfo;
use testgen_classfile::descriptor::MethodDescriptor;
use testgen_classfile::instruction::{opcode, Operands};
use testgen_classfile::{ClassFile, Member};
use testgen_emit::{
    select_covering_with_costs, validate_and_prune, with_receiver_observed, TestCase, TestClass,
    Validator,
};
use testgen_exec::{
    Environment, ExecError, Executor, Plan, PlanOutcome, PlanStatus, Statement, StatementOutcome,
    TraceEvent,
};
use testgen_symbolic::explore::{branch_outcome, explore, Exploration, ExploreOptions, Reached};
use testgen_symbolic::machine::ReplayOptions;
use testgen_symbolic::program::{MethodKey, Program};
use testgen_symbolic::tree::{ConstraintTree, Leaf, Node, Outcome};

use super::options::GenerateOptions;
use super::portability::{environment_reruns, share_static_state, Portability, StaticState};
use super::program::LoadedClass;
use super::report::{Effort, Status};
use super::shrink::shrink;

/// A branch outcome of the class the tests did not reach, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Uncovered {
    /// `pkg.Class.name(descriptor)`.
    pub method: String,
    /// Source line (0 when the class has no line numbers).
    pub line: u32,
    pub outcome: String,
    pub reason: String,
}

/// What generating for one class produced, before anything is written.
#[derive(Debug)]
pub struct ClassOutcome {
    pub binary: String,
    pub sha256: String,
    /// `generated`, or (from the cache) `unchanged` or `revalidated`.
    pub status: Status,
    /// The validated source and its path relative to `--out`; `None` when
    /// no test passed (or generation failed).
    pub source: Option<(std::path::PathBuf, String)>,
    pub tests: usize,
    pub branches: usize,
    pub branches_covered: usize,
    pub infeasible: usize,
    pub uncovered: Vec<Uncovered>,
    /// Why the class failed, if it did.
    pub failure: Option<String>,
    pub effort: Effort,
    /// What exploring each method (`name(descriptor)`) found, for the cache.
    pub explorations: Vec<(String, Exploration)>,
    /// The tests written, to run again when a dependency changes.
    pub kept: Option<TestClass>,
    /// Why some runs could not use a class (it or one it needs could not be
    /// loaded or initialised), if that happened: worth a warning.
    pub load_error: Option<String>,
    /// What a nightly run decided about the class, for the report.
    pub note: Option<String>,
    /// When the outcome is the cached one after a nightly deeper
    /// exploration that found nothing new: how many in a row (the cache
    /// entry is updated with it).
    pub fruitless_deepenings: Option<u32>,
    /// Tests dropped or changed so that the rest pass wherever the build
    /// runs them.
    pub portability: Portability,
    /// The class's mutable static state, and the reset its tests call.
    pub static_state: StaticState,
}

impl ClassOutcome {
    /// A generated class with nothing in it yet.
    pub fn new(class: &LoadedClass) -> ClassOutcome {
        ClassOutcome {
            binary: class.binary.clone(),
            sha256: class.sha256.clone(),
            status: Status::Generated,
            source: None,
            tests: 0,
            branches: 0,
            branches_covered: 0,
            infeasible: 0,
            uncovered: Vec::new(),
            failure: None,
            effort: Effort::default(),
            explorations: Vec::new(),
            kept: None,
            load_error: None,
            note: None,
            fruitless_deepenings: None,
            portability: Portability::default(),
            static_state: StaticState::default(),
        }
    }
}

/// How many candidates that do not promise a missing outcome on their path
/// are run in search of it.
const MAX_EXTRA_MEASUREMENTS: usize = 20;

/// A covering plan of an exploration (with the receiver observed).
struct Candidate {
    plan: Plan,
    /// The pseudo-outcome of the explored method.
    act: u32,
    /// What its path in the constraint tree covers, and its `act`.
    estimate: BTreeSet<u32>,
    /// Not run yet (`None`); run but no use for a test (`Some(None)`); run,
    /// with what the probes saw (`Some(Some(..))`).
    runs: Option<Option<(PlanOutcome, BTreeSet<u32>)>>,
}

/// Runs a candidate once (if not done yet) and returns what it covers, or
/// `None` when it hung, exited or crashed (no test is made of it).
fn measure(
    executor: &mut Executor,
    program: &Program<'_>,
    internal: &str,
    ids: &BTreeMap<Reached, u32>,
    candidate: &mut Candidate,
    result: &mut ClassOutcome,
) -> Result<Option<BTreeSet<u32>>, ExecError> {
    if candidate.runs.is_none() {
        let first = executor.run(&candidate.plan)?;
        result.effort.runs += 1;
        let linkage = linkage_error(&first);
        let usable = linkage.is_none()
            && matches!(
                first.status,
                PlanStatus::Completed | PlanStatus::Exception { .. }
            );
        if let (Some(error), None) = (linkage, &result.load_error) {
            result.load_error = Some(error);
        }
        candidate.runs = Some(usable.then(|| {
            let mut coverage = covered_ids(program, &first, internal, ids);
            coverage.insert(candidate.act);
            (first, coverage)
        }));
    }
    Ok(candidate
        .runs
        .as_ref()
        .and_then(|runs| runs.as_ref().map(|(_, coverage)| coverage.clone())))
}

/// The error of a statement that failed because a class could not be
/// loaded, linked or initialised (`NoClassDefFoundError`,
/// `ExceptionInInitializerError`, ...). No test is made of such a run: what
/// it throws depends on which test touched the class first (the first gets
/// `ExceptionInInitializerError`, later ones `NoClassDefFoundError`), so it
/// would pass or fail with the order JUnit runs the tests in.
fn linkage_error(outcome: &PlanOutcome) -> Option<String> {
    const LINKAGE_ERRORS: [&str; 7] = [
        "java.lang.NoClassDefFoundError",
        "java.lang.ExceptionInInitializerError",
        "java.lang.UnsatisfiedLinkError",
        "java.lang.VerifyError",
        "java.lang.IncompatibleClassChangeError",
        "java.lang.ClassFormatError",
        "java.lang.LinkageError",
    ];
    outcome
        .statements
        .iter()
        .find_map(|statement| match statement {
            StatementOutcome::Threw { exception }
                if LINKAGE_ERRORS.contains(&exception.class.as_str()) =>
            {
                Some(match &exception.message {
                    Some(message) => format!("{}: {message}", exception.class),
                    None => exception.class.clone(),
                })
            }
            _ => None,
        })
}

/// The inputs of every covered path with the branch outcomes on the path,
/// in tree order (as `ConstraintTree::covering_inputs`).
fn covered_paths(tree: &ConstraintTree<Plan>) -> Vec<(&Plan, BTreeSet<Reached>)> {
    let mut found = Vec::new();
    let mut stack = vec![(ConstraintTree::<Plan>::ROOT, BTreeSet::new())];
    while let Some((at, path)) = stack.pop() {
        match tree.node(at) {
            Node::Leaf(Leaf::Covered { inputs }) => found.push((inputs, path)),
            Node::Leaf(_) => {}
            Node::Branch { at, edges } => {
                for edge in edges.iter().rev() {
                    let mut longer = path.clone();
                    longer.insert(Reached {
                        method: at.method.clone(),
                        offset: at.offset,
                        outcome: edge.outcome,
                    });
                    stack.push((edge.child, longer));
                }
            }
        }
    }
    found
}

/// Generates (but does not write) the tests of `class`. The methods in
/// `reuse` (by `name(descriptor)`) are not explored again: their cached
/// explorations stand. Each kept plan also runs under `varied` (another
/// machine's defaults), one default at a time.
pub fn generate_class(
    executor: &mut Executor,
    validator: &Validator,
    program: &Program<'_>,
    class: &LoadedClass,
    options: &GenerateOptions,
    varied: &Environment,
    mut reuse: BTreeMap<String, Exploration>,
) -> Result<ClassOutcome, ExecError> {
    let started = Instant::now();
    let mut result = ClassOutcome::new(class);
    let Some(file) = program.class(&class.internal) else {
        result.failure = Some("the class could not be instrumented".into());
        return Ok(result);
    };
    let outcomes = branch_outcomes(file, &class.internal);
    result.branches = outcomes.len();

    // Explore every target; the class's budget is split evenly.
    let targets = targets(file, &class.internal);
    let per_method = options
        .budget
        .checked_div(targets.len().max(1) as u32)
        .unwrap_or(Duration::ZERO);
    let defaults = ExploreOptions::default();
    let explore_options = ExploreOptions {
        max_runs: options.max_runs_per_method,
        budget: per_method,
        replay: ReplayOptions {
            assertions: options.test_jvm.assertions.clone(),
            ..defaults.replay.clone()
        },
        ..defaults
    };
    let mut explorations: Vec<(MethodKey, Exploration)> = Vec::new();
    for key in targets {
        if let Some(found) = reuse.remove(&format!("{}{}", key.name, key.descriptor)) {
            result.effort.methods_reused += 1;
            explorations.push((key, found));
            continue;
        }
        let found = explore(executor, program, &key, &explore_options)?;
        result.effort.runs += found.runs;
        result.effort.paths += found.runs;
        result.effort.solver_seconds += found.solver_seconds;
        result.effort.explore_seconds += found.seconds;
        explorations.push((key, found));
    }
    result.effort.methods_explored = explorations.len();

    // Every covering plan once, in exploration order, with what its path
    // in the constraint tree says it covers (an estimate: a replay that
    // stopped early records a shorter path).
    let mut ids: BTreeMap<Reached, u32> = BTreeMap::new();
    for outcome in &outcomes {
        let next = ids.len() as u32;
        ids.insert(outcome.reached.clone(), next);
    }
    let mut acts: BTreeMap<&MethodKey, u32> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    let mut candidates = Vec::new();
    for (key, found) in &explorations {
        for (plan, path) in covered_paths(&found.tree) {
            let Ok(text) = serde_json::to_string(plan) else {
                continue;
            };
            if !seen.insert(text) {
                continue;
            }
            let mut estimate: BTreeSet<u32> =
                path.iter().filter_map(|r| ids.get(r).copied()).collect();
            // Every explored method keeps at least one test, branches or not.
            let next = (ids.len() + acts.len()) as u32;
            let act = *acts.entry(key).or_insert(next);
            estimate.insert(act);
            candidates.push(Candidate {
                plan: with_receiver_observed(plan),
                act,
                estimate,
                runs: None,
            });
        }
    }
    result.effort.candidates = candidates.len();

    // Choose by the estimates, then run the chosen plans and measure what
    // they really cover; outcomes the explorations reached that the chosen
    // tests miss are looked for in the other plans, in order.
    let estimates: Vec<BTreeSet<u32>> = candidates.iter().map(|c| c.estimate.clone()).collect();
    let costs: Vec<usize> = candidates.iter().map(|c| c.plan.statements.len()).collect();
    let mut chosen = select_covering_with_costs(&estimates, &costs);
    let reached_here: BTreeSet<u32> = explorations
        .iter()
        .flat_map(|(_, found)| found.reached.iter())
        .filter_map(|r| ids.get(r).copied())
        .chain(acts.values().copied())
        .collect();
    let mut covered_by_chosen: BTreeSet<u32> = BTreeSet::new();
    for &index in &chosen {
        if let Some(coverage) = measure(
            executor,
            program,
            &class.internal,
            &ids,
            &mut candidates[index],
            &mut result,
        )? {
            covered_by_chosen.extend(coverage);
        }
    }
    let mut missing: BTreeSet<u32> = reached_here
        .difference(&covered_by_chosen)
        .copied()
        .collect();
    // Candidates whose path promises a missing outcome first, then a few
    // others (an outcome reached inside a callee is not on the caller's
    // path): measuring every candidate of a class with hundreds of them
    // cost minutes.
    let (promising, others): (Vec<usize>, Vec<usize>) = (0..candidates.len())
        .filter(|index| !chosen.contains(index))
        .partition(|&index| !candidates[index].estimate.is_disjoint(&missing));
    let order = promising
        .into_iter()
        .chain(others.into_iter().take(MAX_EXTRA_MEASUREMENTS));
    for index in order {
        let candidate = &mut candidates[index];
        if missing.is_empty() {
            break;
        }
        if candidate.runs.is_some() {
            continue;
        }
        let measured = measure(
            executor,
            program,
            &class.internal,
            &ids,
            candidate,
            &mut result,
        )?;
        if let Some(coverage) = measured {
            if coverage.iter().any(|id| missing.contains(id)) {
                missing.retain(|id| !coverage.contains(id));
                chosen.push(index);
            }
        }
    }
    chosen.sort_unstable();

    let mut tests = Vec::with_capacity(chosen.len());
    let mut kept_coverage = Vec::with_capacity(chosen.len());
    for index in chosen {
        let candidate = &candidates[index];
        let Some((first, coverage)) = candidate.runs.clone().flatten() else {
            continue;
        };
        let (plan, first) = shrink(
            executor,
            candidate.plan.clone(),
            first,
            |outcome| covered_ids(program, outcome, &class.internal, &ids),
            &mut result.effort.runs,
        )?;
        let coverage: BTreeSet<u32> = coverage
            .union(&covered_ids(program, &first, &class.internal, &ids))
            .copied()
            .collect();
        // Shrinking can make two tests the same (both reduced to the call
        // that throws); one of them is enough.
        if let Some(same) = tests.iter().position(|test: &TestCase| test.plan == plan) {
            let merged: &mut BTreeSet<u32> = &mut kept_coverage[same];
            merged.extend(coverage);
            continue;
        }
        let second = executor.run(&plan)?;
        let reruns = environment_reruns(executor, &plan, varied)?;
        result.effort.runs += 1 + reruns.len();
        tests.push(TestCase {
            parameter_names: act_of(&plan, &first)
                .map(|key| parameter_names(program, &key))
                .unwrap_or_default(),
            plan,
            first,
            second,
            reruns,
        });
        kept_coverage.push(coverage);
    }
    let mut test_class = TestClass {
        class_under_test: class.binary.clone(),
        sha256: class.sha256.clone(),
        testgen_version: env!("CARGO_PKG_VERSION").to_string(),
        junit: options.junit,
        tests,
        static_reset: None,
    };
    result.static_state = share_static_state(executor, file, &mut test_class)?;

    let mut covered: BTreeSet<u32> = BTreeSet::new();
    let mut dropped: Vec<String> = Vec::new();
    if !test_class.tests.is_empty() {
        match validate_and_prune(&test_class, validator) {
            Ok(validated) => {
                for method in &validated.emitted.methods {
                    covered.extend(kept_coverage[method.case].iter().copied());
                }
                result.portability = Portability::of(&validated);
                dropped = validated
                    .dropped
                    .iter()
                    .map(|d| {
                        let reason = d.reason.lines().next().unwrap_or("").to_string();
                        if d.method.is_empty() {
                            reason
                        } else {
                            format!("{}: {reason}", d.method)
                        }
                    })
                    .collect();
                result.tests = validated.emitted.methods.len();
                if result.tests > 0 {
                    result.source = Some((validated.emitted.path, validated.emitted.source));
                    let mut kept = test_class.clone();
                    let cases: BTreeSet<usize> =
                        validated.emitted.methods.iter().map(|m| m.case).collect();
                    kept.tests = (0..test_class.tests.len())
                        .filter(|case| cases.contains(case))
                        .map(|case| test_class.tests[case].clone())
                        .collect();
                    result.kept = Some(kept);
                }
            }
            Err(error) => result.failure = Some(format!("validating the tests: {error}")),
        }
    }

    // What the kept tests cover, and why the rest is not.
    let infeasible: BTreeSet<&Reached> = explorations
        .iter()
        .flat_map(|(_, found)| found.infeasible.iter())
        .collect();
    let reached: BTreeSet<&Reached> = explorations
        .iter()
        .flat_map(|(_, found)| found.reached.iter())
        .collect();
    for outcome in &outcomes {
        let id = ids[&outcome.reached];
        if covered.contains(&id) {
            result.branches_covered += 1;
            continue;
        }
        let reason = if infeasible.contains(&outcome.reached) {
            result.infeasible += 1;
            "proven infeasible".to_string()
        } else if reached.contains(&outcome.reached) {
            if dropped.is_empty() {
                "reached while exploring, but no kept test covers it".to_string()
            } else {
                format!(
                    "its test was dropped in validation ({})",
                    dropped.join("; ")
                )
            }
        } else {
            unreached_reason(&outcome.reached.method, &explorations, &explore_options)
        };
        result.uncovered.push(Uncovered {
            method: outcome.reached.method.clone(),
            line: outcome.line,
            outcome: outcome_label(outcome.reached.outcome),
            reason,
        });
    }
    result.effort.seconds = started.elapsed().as_secs_f64();
    result.explorations = explorations
        .into_iter()
        .map(|(key, found)| (format!("{}{}", key.name, key.descriptor), found))
        .collect();
    Ok(result)
}

/// Why nothing reached an outcome of `method`, from the explorations.
fn unreached_reason(
    method: &str,
    explorations: &[(MethodKey, Exploration)],
    options: &ExploreOptions,
) -> String {
    let own = explorations.iter().find(|(key, _)| key.label() == method);
    // A method explored itself speaks for itself; a private one for the
    // public methods that call it.
    let relevant: Vec<&Exploration> = match own {
        Some((_, found)) => vec![found],
        None => explorations.iter().map(|(_, found)| found).collect(),
    };
    if let Some(failure) = relevant.iter().find_map(|f| f.failure.as_ref()) {
        return failure.clone();
    }
    let errors: BTreeSet<&String> = relevant.iter().flat_map(|f| &f.replay_errors).collect();
    if !errors.is_empty() {
        let errors: Vec<&str> = errors.into_iter().map(String::as_str).collect();
        return format!("not modelled: {}", errors.join("; "));
    }
    if relevant
        .iter()
        .any(|f| f.runs >= options.max_runs || f.seconds >= options.budget.as_secs_f64())
    {
        return "budget exhausted".into();
    }
    if own.is_none() {
        "not reached from the public methods".into()
    } else {
        "not reached".into()
    }
}

/// The ids of the class's branch outcomes that a run's probes saw.
fn covered_ids(
    program: &Program<'_>,
    outcome: &PlanOutcome,
    internal: &str,
    ids: &BTreeMap<Reached, u32>,
) -> BTreeSet<u32> {
    let mut covered = BTreeSet::new();
    let events = outcome
        .trace
        .iter()
        .filter(|thread| thread.thread == "testgen-plan")
        .flat_map(|thread| thread.events.iter());
    for event in events {
        let TraceEvent::Branch { site, operands } = event else {
            continue;
        };
        let Some(at) = program.site(*site) else {
            continue;
        };
        let Some(key) = program.method_key(at.method) else {
            continue;
        };
        if key.class != internal {
            continue;
        }
        if let Some(outcome) = branch_outcome(program, key, at.offset, operands) {
            let reached = Reached {
                method: key.label(),
                offset: at.offset,
                outcome,
            };
            if let Some(id) = ids.get(&reached) {
                covered.insert(*id);
            }
        }
    }
    covered
}

/// The public methods and constructors worth a test, in class-file order.
fn targets(file: &ClassFile<'_>, internal: &str) -> Vec<MethodKey> {
    let class_flags = file.access_flags;
    let is_enum = class_flags.contains(AccessFlags::ENUM);
    let mut targets = Vec::new();
    for method in &file.methods {
        let flags = method.access_flags;
        let (Ok(name), Ok(descriptor)) = (method.name(file), method.descriptor(file)) else {
            continue;
        };
        let skip = !flags.is_public()
            || flags.is_abstract()
            || flags.contains(AccessFlags::BRIDGE)
            || flags.contains(AccessFlags::SYNTHETIC)
            || flags.contains(AccessFlags::NATIVE)
            || name == "<clinit>"
            // An abstract class is tested through its static methods only.
            || (class_flags.is_abstract() && !flags.is_static())
            || (is_enum
                && (name == "values" && descriptor.starts_with("()")
                    || name == "valueOf" && descriptor.starts_with("(Ljava/lang/String;)")));
        if !skip {
            targets.push(MethodKey::new(internal, &name, &descriptor));
        }
    }
    targets
}

/// A branch outcome of the class with its source line.
struct BranchOutcome {
    reached: Reached,
    line: u32,
}

/// Every outcome of every conditional branch and switch in the class's own
/// methods (bridges left out), in method then offset order.
fn branch_outcomes(file: &ClassFile<'_>, internal: &str) -> Vec<BranchOutcome> {
    let mut outcomes = Vec::new();
    for method in &file.methods {
        if method.access_flags.contains(AccessFlags::BRIDGE) {
            continue;
        }
        let (Ok(name), Ok(descriptor)) = (method.name(file), method.descriptor(file)) else {
            continue;
        };
        let Ok(Some(code)) = method.code(file) else {
            continue;
        };
        let label = MethodKey::new(internal, &name, &descriptor).label();
        let lines = code.line_numbers(file);
        let mut push = |offset: u32, outcome: Outcome| {
            outcomes.push(BranchOutcome {
                reached: Reached {
                    method: label.clone(),
                    offset,
                    outcome,
                },
                line: lines.line_at(offset),
            })
        };
        for instruction in code.instructions() {
            let Ok(instruction) = instruction else {
                break;
            };
            let offset = instruction.offset;
            match instruction.operands {
                Operands::Branch(_) if opcode::is_conditional_branch(instruction.opcode) => {
                    push(offset, Outcome::Taken);
                    push(offset, Outcome::NotTaken);
                }
                Operands::TableSwitch(table) => {
                    for (key, _) in table.targets() {
                        push(offset, Outcome::Case(key));
                    }
                    push(offset, Outcome::Default);
                }
                Operands::LookupSwitch(lookup) => {
                    for (key, _) in lookup.targets() {
                        push(offset, Outcome::Case(key));
                    }
                    push(offset, Outcome::Default);
                }
                _ => {}
            }
        }
    }
    outcomes
}

/// `taken`, `not_taken`, `case:3`, `default`.
pub fn outcome_label(outcome: Outcome) -> String {
    match outcome {
        Outcome::Taken => "taken".into(),
        Outcome::NotTaken => "not_taken".into(),
        Outcome::Case(k) => format!("case:{k}"),
        Outcome::Default => "default".into(),
        Outcome::Throws => "throws".into(),
        Outcome::Proceeds => "proceeds".into(),
    }
}

/// The method the emitted test is about: the first statement that did not
/// complete (it becomes the act), else the last one before the observations.
fn act_of(plan: &Plan, outcome: &PlanOutcome) -> Option<MethodKey> {
    let stopped = outcome
        .statements
        .iter()
        .position(|s| !matches!(s, StatementOutcome::Value { .. } | StatementOutcome::Void));
    let last = plan.statements.iter().rposition(|s| {
        !matches!(s, Statement::CallStatic { class, name, .. }
            if class == "java.util.Objects" && name == "requireNonNull")
    });
    let internal = |class: &str| class.replace('.', "/");
    match plan.statements.get(stopped.or(last)?)? {
        Statement::New {
            class, descriptor, ..
        } => Some(MethodKey::new(&internal(class), "<init>", descriptor)),
        Statement::Call {
            class,
            name,
            descriptor,
            ..
        }
        | Statement::CallStatic {
            class,
            name,
            descriptor,
            ..
        } => Some(MethodKey::new(&internal(class), name, descriptor)),
        _ => None,
    }
}

/// The act's parameter names from its local variable table (javac `-g`)
/// or `MethodParameters`; empty when the class file has neither.
fn parameter_names(program: &Program<'_>, key: &MethodKey) -> Vec<String> {
    let Some((class, member)) = program.method(key) else {
        return Vec::new();
    };
    from_method_parameters(class, member)
        .or_else(|| from_local_variables(class, member, &key.descriptor))
        .unwrap_or_default()
}

fn from_method_parameters(class: &ClassFile<'_>, member: &Member<'_>) -> Option<Vec<String>> {
    let Ok(Some(AttributeInfo::MethodParameters(parameters))) =
        member.attribute(class, "MethodParameters")
    else {
        return None;
    };
    parameters
        .iter()
        .map(|p| {
            (p.name_index != 0)
                .then(|| class.constant_pool.utf8(p.name_index).ok())
                .flatten()
                .map(|n| n.into_owned())
        })
        .collect()
}

fn from_local_variables(
    class: &ClassFile<'_>,
    member: &Member<'_>,
    descriptor: &str,
) -> Option<Vec<String>> {
    let code = member.code(class).ok()??;
    let Ok(Some(AttributeInfo::LocalVariableTable(locals))) =
        code.attribute(class, "LocalVariableTable")
    else {
        return None;
    };
    let parsed = MethodDescriptor::parse(descriptor).ok()?;
    let mut slot: u16 = if member.access_flags.is_static() {
        0
    } else {
        1
    };
    let mut names = Vec::with_capacity(parsed.parameters.len());
    for parameter in &parsed.parameters {
        let local = locals.iter().find(|l| l.index == slot && l.start_pc == 0)?;
        names.push(
            class
                .constant_pool
                .utf8(local.name_index)
                .ok()?
                .into_owned(),
        );
        slot += u16::from(parameter.slots());
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(statements: Vec<StatementOutcome>) -> PlanOutcome {
        serde_json::from_value(serde_json::json!({
            "status": {"kind": "completed"},
            "statements": statements,
            "stdout": {"text": "", "total_bytes": 0, "truncated": false},
            "stderr": {"text": "", "total_bytes": 0, "truncated": false},
            "accesses": [],
            "accesses_truncated": false,
            "leftover_threads": [],
            "trace": [],
            "elapsed_micros": 0,
            "restarted": false,
        }))
        .unwrap()
    }

    #[test]
    fn the_act_is_the_statement_that_threw_else_the_last_call() {
        let new = Statement::New {
            class: "p.Account".into(),
            descriptor: "(Ljava/lang/String;J)V".into(),
            args: vec![
                testgen_exec::Value::Null,
                testgen_exec::Value::Long { value: 0 },
            ],
        };
        let deposit = Statement::Call {
            receiver: testgen_exec::Value::Ref { statement: 0 },
            class: "p.Account".into(),
            name: "deposit".into(),
            descriptor: "(J)V".into(),
            args: vec![testgen_exec::Value::Long { value: 1 }],
        };
        let plan = with_receiver_observed(&Plan::new(vec![new, deposit]));
        assert_eq!(plan.statements.len(), 3);
        let summary = StatementOutcome::Value {
            value: serde_json::from_value(serde_json::json!({"kind": "null"})).unwrap(),
        };
        let completed = outcome(vec![
            summary.clone(),
            StatementOutcome::Void,
            summary.clone(),
        ]);
        assert_eq!(
            act_of(&plan, &completed),
            Some(MethodKey::new("p/Account", "deposit", "(J)V"))
        );
        let threw = outcome(vec![
            StatementOutcome::Invalid { reason: "x".into() },
            StatementOutcome::NotRun,
            StatementOutcome::NotRun,
        ]);
        assert_eq!(
            act_of(&plan, &threw),
            Some(MethodKey::new(
                "p/Account",
                "<init>",
                "(Ljava/lang/String;J)V"
            ))
        );
    }

    #[test]
    fn outcome_labels_match_the_report_format() {
        assert_eq!(outcome_label(Outcome::Taken), "taken");
        assert_eq!(outcome_label(Outcome::Case(-3)), "case:-3");
        assert_eq!(outcome_label(Outcome::Default), "default");
    }
}
