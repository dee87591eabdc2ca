//! What `Program` reads from the bytecode about a class's methods.

// Shared with the other tests of this crate; this one uses only a part.
#[allow(dead_code)]
mod support;

use std::collections::BTreeSet;

use testgen_symbolic::program::MethodKey;

fn names(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn field_accesses_name_what_a_method_reads_and_writes() {
    // fixtures/demo's package is `demo`, not `fixtures.*`.
    let classes_dir = testgen_testkit::compile_fixture("demo");
    let classes = testgen_testkit::classes_in(&classes_dir);
    let fixture = support::Fixture::new(classes, vec![classes_dir], "demo/");
    let program = fixture.program();
    let thermostat =
        |name: &str, descriptor: &str| MethodKey::new("demo/Thermostat", name, descriptor);

    let (read, written) = program.field_accesses(&thermostat("action", "(I)Ljava/lang/String;"));
    assert_eq!(read, names(&["away", "targetTenths", "toleranceTenths"]));
    assert!(written.is_empty(), "{written:?}");

    let (read, written) = program.field_accesses(&thermostat("setAway", "(Z)V"));
    assert!(read.is_empty(), "{read:?}");
    assert_eq!(written, names(&["away"]));

    // `balanceCents -= cents` reads and writes; the owner goes into the
    // exception's message.
    let (read, written) =
        program.field_accesses(&MethodKey::new("demo/Account", "withdraw", "(J)V"));
    assert_eq!(read, names(&["balanceCents", "owner"]));
    assert_eq!(written, names(&["balanceCents"]));
}
