//! `testgen.sarif`: the report's findings in SARIF 2.1.0, the format code
//! scanning tools and IDEs read, one result per finding with where it
//! happens, the rule it breaks and the test that shows it.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::report::Report;

/// The file's name, beside `testgen-report.json`.
pub const SARIF_FILE: &str = "testgen.sarif";

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A kind of finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// An unchecked exception escaped from inside the JDK through a method
    /// that does not declare it.
    UndeclaredJdkException,
}

impl Rule {
    const ALL: [Rule; 1] = [Rule::UndeclaredJdkException];

    fn id(self) -> &'static str {
        match self {
            Rule::UndeclaredJdkException => "undeclared-jdk-exception",
        }
    }

    fn index(self) -> usize {
        Rule::ALL.iter().position(|r| *r == self).unwrap_or(0)
    }

    fn descriptor(self) -> Value {
        let (name, short, full) = match self {
            Rule::UndeclaredJdkException => (
                "UndeclaredJdkException",
                "An exception escapes from inside the JDK",
                "A method lets an unchecked exception that the JDK throws when it is \
                 misused (an index out of bounds, a class cast, arithmetic) escape from \
                 inside the JDK, and does not declare it: the method probably passes on \
                 an input it should have checked.",
            ),
        };
        json!({
            "id": self.id(),
            "name": name,
            "shortDescription": { "text": short },
            "fullDescription": { "text": full },
            "defaultConfiguration": { "level": "warning" },
        })
    }
}

/// The SARIF log of `report`'s findings.
pub fn render(report: &Report) -> Value {
    let mut results = Vec::new();
    for class in &report.classes {
        for bug in &class.possible_bugs {
            let rule = Rule::UndeclaredJdkException;
            let simple = class.class.rsplit('.').next().unwrap_or(&class.class);
            let exception = bug.exception.rsplit('.').next().unwrap_or(&bug.exception);
            let said = bug
                .message
                .as_deref()
                .map(|m| format!(" (\"{m}\")"))
                .unwrap_or_default();
            let text = format!(
                "{simple}.{} lets {exception}{said} escape from {}, and does not declare it.",
                bug.declaration, bug.thrown_in
            );
            let mut location = json!({
                "logicalLocations": [{
                    "fullyQualifiedName": format!("{}.{}", class.class, bug.method),
                    "kind": "function",
                }],
            });
            if let Some(file) = &bug.file {
                let mut physical = json!({
                    "artifactLocation": { "uri": file, "uriBaseId": "SRCROOT" },
                });
                if let Some(line) = bug.line.filter(|&line| line > 0) {
                    physical["region"] = json!({ "startLine": line });
                }
                location["physicalLocation"] = physical;
            }
            // Not the JDK's frames, which another JDK version names otherwise.
            let fingerprint = Sha256::digest(
                format!(
                    "{}\n{}\n{}\n{}",
                    class.class,
                    bug.method,
                    bug.exception,
                    bug.line.unwrap_or(0)
                )
                .as_bytes(),
            );
            results.push(json!({
                "ruleId": rule.id(),
                "ruleIndex": rule.index(),
                "level": "warning",
                "message": { "text": text },
                "locations": [location],
                "partialFingerprints": {
                    "testgenFinding/v1": super::program::hex(&fingerprint),
                },
                "properties": { "test": bug.test },
            }));
        }
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "testgen",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": Rule::ALL.iter().map(|rule| rule.descriptor()).collect::<Vec<_>>(),
                },
            },
            "results": results,
            "originalUriBaseIds": {
                "SRCROOT": {
                    "description": {
                        "text": "The root of the Java sources, where package directories begin \
                                 (src/main/java in Maven and Gradle projects)."
                    }
                }
            },
        }],
    })
}
