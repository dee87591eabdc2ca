//! The concolic loop on real code: fixtures.differential.Mixed is
//! instrumented, run on a real JVM, replayed over z3 and solved until every
//! branch outcome of the explored methods has been reached, as testgen's own
//! probes report it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use testgen_classfile::instruction::{opcode, Operands};
use testgen_classfile::ClassFile;
use testgen_exec::{BranchOperands, Executor, ExecutorConfig};
use testgen_probes::{instrument, ProbeIds, SiteKind};
use testgen_symbolic::explore::{explore, ExploreOptions, Target};

/// Every outcome of every branch and switch of a method, by offset.
fn all_outcomes(class: &ClassFile<'_>, name: &str) -> BTreeSet<(u32, String)> {
    let method = class
        .methods
        .iter()
        .find(|m| m.name(class).unwrap() == name)
        .unwrap();
    let mut outcomes = BTreeSet::new();
    for instruction in method.code(class).unwrap().unwrap().instructions() {
        let instruction = instruction.unwrap();
        let offset = instruction.offset;
        match instruction.operands {
            Operands::Branch(_) if opcode::is_conditional_branch(instruction.opcode) => {
                outcomes.insert((offset, "jump".to_string()));
                outcomes.insert((offset, "fall".to_string()));
            }
            Operands::TableSwitch(table) => {
                outcomes.extend(
                    table
                        .targets()
                        .map(|(key, _)| (offset, format!("case {key}"))),
                );
                outcomes.insert((offset, "default".to_string()));
            }
            Operands::LookupSwitch(lookup) => {
                outcomes.extend(
                    lookup
                        .targets()
                        .map(|(key, _)| (offset, format!("case {key}"))),
                );
                outcomes.insert((offset, "default".to_string()));
            }
            _ => {}
        }
    }
    outcomes
}

/// The outcome a branch event shows, named as in [`all_outcomes`].
fn reached(
    class: &ClassFile<'_>,
    name: &str,
    offset: u32,
    operands: &BranchOperands,
) -> (u32, String) {
    let method = class
        .methods
        .iter()
        .find(|m| m.name(class).unwrap() == name)
        .unwrap();
    let instruction = method
        .code(class)
        .unwrap()
        .unwrap()
        .instructions()
        .map(Result::unwrap)
        .find(|i| i.offset == offset)
        .unwrap();
    let jumps = |taken: bool| (offset, if taken { "jump" } else { "fall" }.to_string());
    let op = instruction.opcode;
    match (operands, instruction.operands) {
        (BranchOperands::Int { value }, _) => jumps(match op {
            opcode::IFEQ => *value == 0,
            opcode::IFNE => *value != 0,
            opcode::IFLT => *value < 0,
            opcode::IFGE => *value >= 0,
            opcode::IFGT => *value > 0,
            _ => *value <= 0,
        }),
        (BranchOperands::IntPair { left, right }, _) => jumps(match op {
            opcode::IF_ICMPEQ => left == right,
            opcode::IF_ICMPNE => left != right,
            opcode::IF_ICMPLT => left < right,
            opcode::IF_ICMPGE => left >= right,
            opcode::IF_ICMPGT => left > right,
            _ => left <= right,
        }),
        (BranchOperands::SwitchKey { key }, Operands::TableSwitch(table)) => {
            let known = table.targets().any(|(k, _)| k == *key);
            (
                offset,
                if known {
                    format!("case {key}")
                } else {
                    "default".into()
                },
            )
        }
        (BranchOperands::SwitchKey { key }, Operands::LookupSwitch(lookup)) => {
            let known = lookup.targets().any(|(k, _)| k == *key);
            (
                offset,
                if known {
                    format!("case {key}")
                } else {
                    "default".into()
                },
            )
        }
        (other, _) => panic!("unexpected event {other:?} at {offset}"),
    }
}

#[test]
fn every_branch_of_primitive_methods_is_reached() {
    let classes = testgen_testkit::compile_fixture("differential");
    let bytes = fs::read(classes.join("fixtures/differential/Mixed.class")).unwrap();
    let class = ClassFile::parse(&bytes).unwrap();
    let instrumented = instrument(&bytes, &mut ProbeIds::default(), &|n| {
        n.starts_with("fixtures/")
    })
    .unwrap();
    let cache = std::env::temp_dir()
        .join("testgen-tests")
        .join("executor-cache");
    let mut executor =
        Executor::start(ExecutorConfig::new("java", vec![classes.clone()], cache)).unwrap();
    executor
        .define(&[(
            "fixtures.differential.Mixed".to_string(),
            instrumented.bytes.clone(),
        )])
        .unwrap();

    for name in [
        "clamp",
        "band",
        "compareLongs",
        "classifyFloat",
        "safeRatio",
        "day",
    ] {
        let probed = instrumented
            .methods
            .iter()
            .find(|m| m.name == name)
            .unwrap();
        let sites: BTreeMap<i32, u32> = instrumented
            .sites
            .iter()
            .filter(|s| {
                s.method == probed.id
                    && matches!(s.kind, SiteKind::Branch { .. } | SiteKind::Switch { .. })
            })
            .map(|s| (s.id as i32, s.offset))
            .collect();
        let method = class
            .methods
            .iter()
            .find(|m| m.name(&class).unwrap() == name)
            .unwrap();
        let target = Target {
            class: &class,
            method,
            class_name: "fixtures.differential.Mixed".into(),
            method_id: probed.id as i32,
            sites,
        };
        let found = explore(&mut executor, &target, &ExploreOptions::default()).unwrap();
        let stats = found.tree.stats();
        let covered: BTreeSet<(u32, String)> = found
            .observed
            .iter()
            .map(|(offset, operands)| reached(&class, name, *offset, operands))
            .collect();
        let expected = all_outcomes(&class, name);
        println!(
            "{name}: {} runs, {}/{} predicted paths taken, {} of {} branch outcomes reached, tree {stats:?}, solver {:.3} s",
            found.runs,
            found.agreed,
            found.predicted,
            covered.len(),
            expected.len(),
            found.solver_seconds
        );
        assert_eq!(found.replay_error, None, "{name}");
        assert_eq!(stats.unexplored, 0, "{name}");
        assert_eq!(stats.timed_out, 0, "{name}");
        if name != "band" {
            assert_eq!(stats.infeasible, 0, "{name}");
        }
        assert_eq!(
            found.agreed, found.predicted,
            "{name}: every solved path was taken"
        );
        if name == "band" {
            // `x < 5` inside `x > 10` can never hold: proven, not just missed.
            assert_eq!(stats.infeasible, 1, "{name}");
            assert_eq!(expected.difference(&covered).count(), 1, "{name}");
        } else if name == "safeRatio" {
            // `Double.isNaN(b)` decides a branch, and JDK calls are not
            // modelled yet: that outcome must be reported as not modelled,
            // never as infeasible.
            assert_eq!(stats.not_modelled, 1, "{name}");
            assert_eq!(stats.infeasible, 0, "{name}");
            assert_eq!(expected.difference(&covered).count(), 1, "{name}");
        } else {
            assert_eq!(
                covered, expected,
                "{name}: outcomes reached by testgen's probes"
            );
        }
    }
}
