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
    StringTest,
    CharTest,
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
            StringTest => ("stringTest", "(Ljava/lang/Object;Ljava/lang/Object;II)V"),
            CharTest => ("charTest", "(III)V"),
            SystemExit => ("systemExit", "(I)V"),
            RuntimeExit => ("runtimeExit", "(Ljava/lang/Object;I)V"),
            RuntimeHalt => ("runtimeHalt", "(Ljava/lang/Object;I)V"),
        }
    }
}

/// A `String` call whose boolean result search measures a distance for;
/// its code is the probe's `test` argument (`CallDistance.java`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StringTest {
    Equals = 0,
    EqualsIgnoreCase = 1,
    StartsWith = 2,
    EndsWith = 3,
    Contains = 4,
    IsEmpty = 5,
}

/// A `Character` predicate search measures a distance for (named as the
/// methods are).
#[allow(clippy::enum_variant_names)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CharTest {
    IsDigit = 0,
    IsLetter = 1,
    IsLetterOrDigit = 2,
    IsWhitespace = 3,
    IsUpperCase = 4,
    IsLowerCase = 5,
    IsAlphabetic = 6,
    IsSpaceChar = 7,
}

/// The measured test a call is, by its owner, name and descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MeasuredCall {
    /// Receiver and one argument on the stack (or only the receiver, for `isEmpty`).
    String(StringTest),
    /// Two arguments of a static call (`Objects.equals`).
    StaticEquals,
    /// One `char` or code point argument of a static call.
    Char(CharTest),
}

impl MeasuredCall {
    pub(crate) fn of(owner: &str, name: &str, descriptor: &str) -> Option<MeasuredCall> {
        use MeasuredCall::*;
        let call = match (owner, name, descriptor) {
            ("java/lang/String" | "java/lang/Object", "equals", "(Ljava/lang/Object;)Z") => {
                String(StringTest::Equals)
            }
            ("java/lang/String", "equalsIgnoreCase", "(Ljava/lang/String;)Z") => {
                String(StringTest::EqualsIgnoreCase)
            }
            ("java/lang/String", "startsWith", "(Ljava/lang/String;)Z") => {
                String(StringTest::StartsWith)
            }
            ("java/lang/String", "endsWith", "(Ljava/lang/String;)Z") => {
                String(StringTest::EndsWith)
            }
            ("java/lang/String", "contains", "(Ljava/lang/CharSequence;)Z") => {
                String(StringTest::Contains)
            }
            ("java/lang/String", "isEmpty", "()Z") => String(StringTest::IsEmpty),
            ("java/util/Objects", "equals", "(Ljava/lang/Object;Ljava/lang/Object;)Z") => {
                StaticEquals
            }
            ("java/lang/Character", name, "(C)Z" | "(I)Z") => Char(match name {
                "isDigit" => CharTest::IsDigit,
                "isLetter" => CharTest::IsLetter,
                "isLetterOrDigit" => CharTest::IsLetterOrDigit,
                "isWhitespace" => CharTest::IsWhitespace,
                "isUpperCase" => CharTest::IsUpperCase,
                "isLowerCase" => CharTest::IsLowerCase,
                "isAlphabetic" => CharTest::IsAlphabetic,
                "isSpaceChar" => CharTest::IsSpaceChar,
                _ => return None,
            }),
            _ => return None,
        };
        Some(call)
    }
}
