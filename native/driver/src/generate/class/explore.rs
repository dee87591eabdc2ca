//! Stage: explore each public method and constructor of the class, or take
//! the exploration the cache kept for a method that did not change.

use std::collections::BTreeMap;
use std::time::Duration;

use testgen_classfile::access::AccessFlags;
use testgen_classfile::ClassFile;
use testgen_exec::ExecError;
use testgen_project::{ClassName, MethodId};
use testgen_symbolic::explore::{explore, Exploration, ExploreOptions};
use testgen_symbolic::machine::ReplayOptions;

use super::runner::PlanRunner;
use super::ClassJob;
use crate::generate::report::Effort;

/// What exploring the class's methods found, in class-file order.
pub struct Explored {
    pub methods: Vec<(MethodId, Exploration)>,
    /// The limits each method was explored within.
    pub options: ExploreOptions,
}

/// Explores every target of the class within its budget (split evenly),
/// reusing the explorations in `reuse` (by `name(descriptor)`).
pub fn explore_methods(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_>,
    mut reuse: BTreeMap<String, Exploration>,
    effort: &mut Effort,
) -> Result<Explored, ExecError> {
    let targets = targets(job.file, &job.name);
    let per_method = job
        .options
        .budget
        .checked_div(targets.len().max(1) as u32)
        .unwrap_or(Duration::ZERO);
    let defaults = ExploreOptions::default();
    let options = ExploreOptions {
        max_runs: job.options.max_runs_per_method,
        budget: per_method,
        replay: ReplayOptions {
            assertions: job.options.test_jvm.assertions.clone(),
            ..defaults.replay.clone()
        },
        ..defaults
    };
    let mut methods = Vec::with_capacity(targets.len());
    for method in targets {
        if let Some(found) = reuse.remove(&method.signature()) {
            effort.methods_reused += 1;
            methods.push((method, found));
            continue;
        }
        let found = explore(runner.executor(), job.recipes, &method, &options)?;
        effort.runs += found.runs;
        effort.paths += found.runs;
        effort.solver_seconds += found.solver_seconds;
        effort.explore_seconds += found.seconds;
        methods.push((method, found));
    }
    effort.methods_explored = methods.len();
    Ok(Explored { methods, options })
}

/// The public methods and constructors worth a test, in class-file order.
pub fn targets(file: &ClassFile<'_>, class: &ClassName) -> Vec<MethodId> {
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
            targets.push(MethodId::new(class.clone(), name, descriptor));
        }
    }
    targets
}
