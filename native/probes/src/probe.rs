//! The recorder methods instrumented code calls: the contract with the
//! executor's `dev.testgen.executor.Probe` (see native/exec/PROBE_API.md).

/// Internal name of the recorder class inside the executor JVM.
pub const PROBE_CLASS: &str = "dev/testgen/executor/Probe";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProbeMethod {
    Enter,
    Exit,
    Athrow,
    Caught,
    IfInt,
    IfIntPair,
    IfRef,
    IfRefPair,
    SwitchKey,
    Lcmp,
    Fcmpl,
    Fcmpg,
    Dcmpl,
    Dcmpg,
    Returned,
    ResultInt,
    ResultLong,
    ResultFloat,
    ResultDouble,
    ResultObject,
    SystemExit,
    RuntimeExit,
    RuntimeHalt,
}

impl ProbeMethod {
    pub fn name(self) -> &'static str {
        self.name_and_descriptor().0
    }

    pub fn descriptor(self) -> &'static str {
        self.name_and_descriptor().1
    }

    fn name_and_descriptor(self) -> (&'static str, &'static str) {
        use ProbeMethod::*;
        match self {
            Enter => ("enter", "(I)V"),
            Exit => ("exit", "(I)V"),
            Athrow => ("athrow", "(Ljava/lang/Object;I)V"),
            Caught => ("caught", "(Ljava/lang/Object;I)V"),
            IfInt => ("ifInt", "(II)V"),
            IfIntPair => ("ifIntPair", "(III)V"),
            IfRef => ("ifRef", "(Ljava/lang/Object;I)V"),
            IfRefPair => ("ifRefPair", "(Ljava/lang/Object;Ljava/lang/Object;I)V"),
            SwitchKey => ("switchKey", "(II)V"),
            Lcmp => ("lcmp", "(JJI)I"),
            Fcmpl => ("fcmpl", "(FFI)I"),
            Fcmpg => ("fcmpg", "(FFI)I"),
            Dcmpl => ("dcmpl", "(DDI)I"),
            Dcmpg => ("dcmpg", "(DDI)I"),
            Returned => ("returned", "(I)V"),
            ResultInt => ("resultInt", "(II)V"),
            ResultLong => ("resultLong", "(JI)V"),
            ResultFloat => ("resultFloat", "(FI)V"),
            ResultDouble => ("resultDouble", "(DI)V"),
            ResultObject => ("resultObject", "(Ljava/lang/Object;I)V"),
            SystemExit => ("systemExit", "(I)V"),
            RuntimeExit => ("runtimeExit", "(Ljava/lang/Object;I)V"),
            RuntimeHalt => ("runtimeHalt", "(Ljava/lang/Object;I)V"),
        }
    }
}
