//! Probe instrumentation: rewrites a class file so that, run inside the
//! executor, it reports each branch with the operand values that decided it,
//! method entry and exit, exceptions thrown and caught, the results of calls
//! that leave the code under test, and requests to end the JVM.
//!
//! Architecture invariants:
//! - Probes are stack-neutral and add no jump targets: the control flow of
//!   every method is unchanged, so its stack map frames stay valid once their
//!   offsets are moved. Nothing is inserted that needs a new frame.
//! - A method that cannot be instrumented safely (its code would outgrow
//!   64 KiB, a conditional branch would no longer reach) stays exactly as it
//!   was and is listed in [`Instrumented::skipped`].
//! - Deterministic: the same bytes and ids give the same output.
//! - The recorder contract is `native/exec/PROBE_API.md`.

pub mod edit;
mod plan;
mod pool;
pub mod probe;
mod relocate;

use serde::{Deserialize, Serialize};
use testgen_classfile::instruction::Instruction;
use testgen_classfile::writer::ByteWriter;
use testgen_classfile::{ClassFile, ParseError};

use crate::plan::{PlanError, Planner};
use crate::pool::PoolExtension;
use crate::relocate::Relocator;

/// Where the next site and method ids come from. Ids are unique within one
/// executor run, so one allocator serves every class of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeIds {
    pub next_site: u32,
    pub next_method: u32,
}

/// A class with probes, and the tables that explain its events.
#[derive(Clone, Debug)]
pub struct Instrumented {
    pub bytes: Vec<u8>,
    pub methods: Vec<ProbedMethod>,
    pub sites: Vec<Site>,
    pub skipped: Vec<SkippedMethod>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbedMethod {
    pub id: u32,
    pub name: String,
    pub descriptor: String,
}

/// One probe site: the instruction it watches, by original offset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub id: u32,
    /// The [`ProbedMethod::id`] of the method it is in.
    pub method: u32,
    /// Offset of the watched instruction in the original bytecode.
    pub offset: u32,
    pub kind: SiteKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SiteKind {
    /// An `if*`; the opcode says how the operands decide it.
    Branch {
        opcode: u8,
    },
    /// A `tableswitch` or `lookupswitch`.
    Switch {
        opcode: u8,
    },
    /// An `lcmp`, `fcmp*` or `dcmp*`, replaced by a recorder call.
    Compare {
        opcode: u8,
    },
    Throw,
    /// The start of an exception handler.
    Catch,
    /// A call to a class outside the code under test.
    ExternalCall {
        owner: String,
        name: String,
        descriptor: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedMethod {
    pub name: String,
    pub descriptor: String,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
pub enum InstrumentError {
    #[error("cannot read the class: {0}")]
    Parse(#[from] ParseError),
    #[error("the constant pool has no room for the probes' constants")]
    PoolFull,
}

/// Adds probes to every method of the class in `bytes`. Calls to classes
/// for which `is_project_class(internal_name)` is false count as leaving the
/// code under test, and their results are recorded.
pub fn instrument(
    bytes: &[u8],
    ids: &mut ProbeIds,
    is_project_class: &dyn Fn(&str) -> bool,
) -> Result<Instrumented, InstrumentError> {
    let class = ClassFile::parse(bytes)?;
    let mut pool = PoolExtension::new(class.constant_pool.len() as u16);
    let mut methods = Vec::new();
    let mut sites = Vec::new();
    let mut skipped = Vec::new();
    let mut new_code = Vec::with_capacity(class.methods.len());

    for method in &class.methods {
        let Some(code) = method.code(&class)? else {
            new_code.push(None);
            continue;
        };
        let instructions: Vec<Instruction<'_>> = code.instructions().collect::<Result<_, _>>()?;
        let mut handlers: Vec<u32> = code
            .exception_table
            .iter()
            .map(|h| u32::from(h.handler_pc))
            .collect();
        handlers.sort_unstable();
        handlers.dedup();

        // Ids and sites of a method that ends up skipped are given back.
        let checkpoint = (ids.clone(), sites.len());
        let method_id = ids.next_method;
        ids.next_method += 1;
        let mut planner = Planner {
            class: &class,
            pool: &mut pool,
            ids,
            sites: &mut sites,
            is_project_class,
        };
        let outcome = match planner.plan(method_id, &instructions, &handlers) {
            Ok(plan) => Relocator::new(&code, &instructions, &plan)
                .rewrite(&class, &code)
                .map_err(|unsafe_| unsafe_.0),
            Err(PlanError::PoolFull) => return Err(InstrumentError::PoolFull),
            Err(PlanError::Parse(error)) => Err(error.to_string()),
        };
        match outcome {
            Ok(info) => {
                methods.push(ProbedMethod {
                    id: method_id,
                    name: method.name(&class)?.into_owned(),
                    descriptor: method.descriptor(&class)?.into_owned(),
                });
                new_code.push(Some(info));
            }
            Err(reason) => {
                *ids = checkpoint.0;
                sites.truncate(checkpoint.1);
                skipped.push(SkippedMethod {
                    name: method.name(&class)?.into_owned(),
                    descriptor: method.descriptor(&class)?.into_owned(),
                    reason,
                });
                new_code.push(None);
            }
        }
    }

    let bytes = write_class(&class, &pool, &new_code)?;
    Ok(Instrumented {
        bytes,
        methods,
        sites,
        skipped,
    })
}

/// The original class with the appended constants and the new Code
/// attributes; everything else is copied as it was.
fn write_class(
    class: &ClassFile<'_>,
    pool: &PoolExtension,
    new_code: &[Option<ByteWriter>],
) -> Result<Vec<u8>, InstrumentError> {
    let mut out = ByteWriter::with_capacity(2 * 1024);
    out.u32(testgen_classfile::class::MAGIC);
    out.u16(class.minor_version);
    out.u16(class.major_version);
    out.u16(pool.count() as u16);
    for (_, constant) in class.constant_pool.iter() {
        constant.write(&mut out);
    }
    pool.write_entries(&mut out);
    out.u16(class.access_flags.0);
    out.u16(class.this_class);
    out.u16(class.super_class);
    out.u16(class.interfaces.len() as u16);
    for &interface in &class.interfaces {
        out.u16(interface);
    }
    out.u16(class.fields.len() as u16);
    for field in &class.fields {
        field.write(&mut out);
    }
    out.u16(class.methods.len() as u16);
    for (method, code) in class.methods.iter().zip(new_code) {
        let Some(code) = code else {
            method.write(&mut out);
            continue;
        };
        out.u16(method.access_flags.0);
        out.u16(method.name_index);
        out.u16(method.descriptor_index);
        out.u16(method.attributes.len() as u16);
        for attribute in &method.attributes {
            if attribute.is_named(class, "Code")? {
                out.u16(attribute.name_index);
                out.u32(code.len() as u32);
                out.bytes(code.as_slice());
            } else {
                attribute.write(&mut out);
            }
        }
    }
    out.u16(class.attributes.len() as u16);
    for attribute in &class.attributes {
        attribute.write(&mut out);
    }
    Ok(out.into_bytes())
}
