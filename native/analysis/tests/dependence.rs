//! Where branch operands come from, on javac 17 output
//! (`fixtures/analysis/Conditions`).

mod support;

use testgen_analysis::{branch_operands, popped, Origin};
use testgen_classfile::instruction::opcode;
use testgen_classfile::ClassFile;

/// The operands of the first conditional jump or switch in `name`.
fn first_branch(name: &str) -> Vec<Origin> {
    let class = ClassFile::parse(support::fixture("fixtures/analysis/Conditions")).unwrap();
    let method = support::method(&class, name);
    let code = method.code(&class).unwrap().unwrap();
    let branch = code
        .instructions()
        .map(Result::unwrap)
        .find(|i| {
            matches!(
                i.opcode,
                opcode::IFEQ..=opcode::IF_ACMPNE | opcode::IFNULL | opcode::IFNONNULL
            )
        })
        .expect("a branch");
    branch_operands(&class, method, branch.offset).unwrap()
}

fn call_names(origin: &Origin) -> Vec<String> {
    origin
        .walk()
        .into_iter()
        .filter_map(|o| match o {
            Origin::Call { method, .. } => Some(format!("{}.{}", method.owner, method.name)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_call_outside_the_method_decides_a_branch_directly_and_through_a_local() {
    let exists = first_branch("configured");
    assert_eq!(exists.len(), 1);
    assert_eq!(call_names(&exists[0]), ["java/io/File.exists"]);
    // The File was made from the field `path` of `this`.
    let Origin::Call {
        receiver: Some(receiver),
        ..
    } = &exists[0]
    else {
        panic!("{exists:?}")
    };
    assert!(matches!(**receiver, Origin::New { .. }), "{receiver:?}");

    let home = first_branch("home");
    assert_eq!(call_names(&home[0]), ["java/lang/System.getenv"]);
}

#[test]
fn a_field_read_two_objects_deep_names_its_chain() {
    let crowded = first_branch("crowded");
    assert_eq!(crowded.len(), 2, "{crowded:?}");
    let fields: Vec<&str> = crowded[0]
        .walk()
        .into_iter()
        .filter_map(|o| match o {
            Origin::Field { field, .. } => Some(field.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(fields, ["count", "cell"]);
    assert!(crowded[0].walk().contains(&&Origin::This));
    assert!(crowded[0].walk().contains(&&Origin::Parameter(0)));
    assert_eq!(crowded[1], Origin::Constant);
}

#[test]
fn a_loop_counter_and_a_joined_value_are_followed_as_far_as_they_are_known() {
    let sum = first_branch("sum");
    assert_eq!(sum.len(), 2, "{sum:?}");
    // `i` is 0, then changed by iinc; `n` is the parameter.
    assert_eq!(
        sum[0],
        Origin::Computed(vec![
            Origin::Constant,
            Origin::Computed(vec![Origin::Unknown])
        ])
    );
    assert_eq!(sum[1], Origin::Parameter(0));
    let either = first_branch("either");
    assert_eq!(either, [Origin::Parameter(0)]);
}

#[test]
fn an_array_access_takes_its_array_from_a_field_and_its_index_from_a_parameter() {
    let class = ClassFile::parse(support::fixture("fixtures/analysis/Conditions")).unwrap();
    let method = support::method(&class, "at");
    let code = method.code(&class).unwrap().unwrap();
    let load = code
        .instructions()
        .map(Result::unwrap)
        .find(|i| i.opcode == opcode::IALOAD)
        .expect("an iaload");
    let taken = popped(&class, method, load.offset).unwrap();
    assert_eq!(taken.len(), 2, "{taken:?}");
    assert!(
        matches!(&taken[0], Origin::Field { field, object: Some(object), .. }
            if field.name == "values" && **object == Origin::This),
        "{taken:?}"
    );
    assert_eq!(taken[1], Origin::Parameter(0));
    // A branch offset of no branch gives nothing.
    assert!(branch_operands(&class, method, load.offset)
        .unwrap()
        .is_empty());
}
