//! Deciding what goes around each instruction of a method: the probe
//! snippets before it, a replacement for it, and snippets after it.
//!
//! Every snippet is stack-neutral and contains no jump, so the method keeps
//! its control flow and its stack map frames stay valid once relocated.

use testgen_classfile::descriptor::{BaseType, FieldType, MethodDescriptor};
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::ClassFile;

use crate::pool::{PoolExtension, PoolFull};
use crate::probe::{MeasuredCall, ProbeMethod, StringTest, PROBE_CLASS};
use crate::{ProbeIds, Site, SiteKind};

/// One piece of inserted bytecode, with its constant pool indices resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Snippet {
    Dup,
    Dup2,
    AconstNull,
    /// `sipush value`.
    Sipush(i16),
    /// `ldc_w` of an `Integer` constant, for ids above 32767.
    LdcW(u16),
    /// `invokestatic` of a recorder method.
    InvokeStatic(u16),
    /// An instruction of one byte that neither jumps nor reads a constant
    /// (`pop`, `iconst_0`, `aconst_null`): what a mutant's edit inserts.
    Opcode(u8),
}

impl Snippet {
    pub(crate) fn len(self) -> u32 {
        match self {
            Snippet::Dup | Snippet::Dup2 | Snippet::AconstNull | Snippet::Opcode(_) => 1,
            Snippet::Sipush(_) | Snippet::LdcW(_) | Snippet::InvokeStatic(_) => 3,
        }
    }

    pub(crate) fn encode(self, code: &mut Vec<u8>) {
        match self {
            Snippet::Dup => code.push(opcode::DUP),
            Snippet::Dup2 => code.push(opcode::DUP2),
            Snippet::AconstNull => code.push(opcode::ACONST_NULL),
            Snippet::Opcode(opcode) => code.push(opcode),
            Snippet::Sipush(value) => {
                code.push(opcode::SIPUSH);
                code.extend(value.to_be_bytes());
            }
            Snippet::LdcW(index) => {
                code.push(opcode::LDC_W);
                code.extend(index.to_be_bytes());
            }
            Snippet::InvokeStatic(index) => {
                code.push(opcode::INVOKESTATIC);
                code.extend(index.to_be_bytes());
            }
        }
    }
}

pub(crate) fn snippets_len(snippets: &[Snippet]) -> u32 {
    snippets.iter().map(|s| s.len()).sum()
}

/// What to put around one original instruction.
#[derive(Clone, Debug, Default)]
pub(crate) struct Patch {
    pub(crate) before: Vec<Snippet>,
    /// Replaces the instruction (a compare, or an exit call).
    pub(crate) replacement: Option<Vec<Snippet>>,
    pub(crate) after: Vec<Snippet>,
}

pub(crate) struct MethodPlan {
    /// The method entry probe, before everything; jumps to offset 0 land
    /// after it.
    pub(crate) head: Vec<Snippet>,
    /// One patch per instruction, in order.
    pub(crate) patches: Vec<Patch>,
}

/// Plans the probes of one method. Allocates ids and constants as it goes.
pub(crate) struct Planner<'c, 'a> {
    pub(crate) class: &'c ClassFile<'a>,
    pub(crate) pool: &'c mut PoolExtension,
    pub(crate) ids: &'c mut ProbeIds,
    pub(crate) sites: &'c mut Vec<Site>,
    pub(crate) is_project_class: &'c dyn Fn(&str) -> bool,
}

impl Planner<'_, '_> {
    pub(crate) fn plan(
        &mut self,
        method_id: u32,
        instructions: &[Instruction<'_>],
        handler_offsets: &[u32],
    ) -> Result<MethodPlan, PlanError> {
        let head = vec![self.push(method_id)?, self.call(ProbeMethod::Enter)?];
        let mut patches = Vec::with_capacity(instructions.len());
        for (index, instruction) in instructions.iter().enumerate() {
            let mut patch = Patch::default();
            if handler_offsets.binary_search(&instruction.offset).is_ok() {
                let site = self.site(method_id, instruction.offset, SiteKind::Catch);
                patch.before.extend([
                    Snippet::Dup,
                    self.push(site)?,
                    self.call(ProbeMethod::Caught)?,
                ]);
            }
            let next = instructions.get(index + 1);
            self.plan_instruction(method_id, instruction, next, &mut patch)?;
            patches.push(patch);
        }
        Ok(MethodPlan { head, patches })
    }

    fn plan_instruction(
        &mut self,
        method_id: u32,
        instruction: &Instruction<'_>,
        next: Option<&Instruction<'_>>,
        patch: &mut Patch,
    ) -> Result<(), PlanError> {
        use opcode::*;
        let op = instruction.opcode;
        let offset = instruction.offset;
        let probe_before = |planner: &mut Self, patch: &mut Patch, dup, kind, probe| {
            let site = planner.site(method_id, offset, kind);
            patch
                .before
                .extend([dup, planner.push(site)?, planner.call(probe)?]);
            Ok::<(), PlanError>(())
        };
        match op {
            IFEQ..=IFLE => probe_before(
                self,
                patch,
                Snippet::Dup,
                SiteKind::Branch { opcode: op },
                ProbeMethod::IfInt,
            )?,
            IF_ICMPEQ..=IF_ICMPLE => probe_before(
                self,
                patch,
                Snippet::Dup2,
                SiteKind::Branch { opcode: op },
                ProbeMethod::IfIntPair,
            )?,
            IF_ACMPEQ | IF_ACMPNE => probe_before(
                self,
                patch,
                Snippet::Dup2,
                SiteKind::Branch { opcode: op },
                ProbeMethod::IfRefPair,
            )?,
            IFNULL | IFNONNULL => probe_before(
                self,
                patch,
                Snippet::Dup,
                SiteKind::Branch { opcode: op },
                ProbeMethod::IfRef,
            )?,
            TABLESWITCH | LOOKUPSWITCH => probe_before(
                self,
                patch,
                Snippet::Dup,
                SiteKind::Switch { opcode: op },
                ProbeMethod::SwitchKey,
            )?,
            ATHROW => probe_before(
                self,
                patch,
                Snippet::Dup,
                SiteKind::Throw,
                ProbeMethod::Athrow,
            )?,
            LCMP | FCMPL | FCMPG | DCMPL | DCMPG => {
                let probe = match op {
                    LCMP => ProbeMethod::Lcmp,
                    FCMPL => ProbeMethod::Fcmpl,
                    FCMPG => ProbeMethod::Fcmpg,
                    DCMPL => ProbeMethod::Dcmpl,
                    _ => ProbeMethod::Dcmpg,
                };
                let site = self.site(method_id, offset, SiteKind::Compare { opcode: op });
                patch.replacement = Some(vec![self.push(site)?, self.call(probe)?]);
            }
            IRETURN..=RETURN => patch
                .before
                .extend([self.push(method_id)?, self.call(ProbeMethod::Exit)?]),
            INVOKEVIRTUAL | INVOKESPECIAL | INVOKESTATIC | INVOKEINTERFACE => {
                let tested = next.is_some_and(|next| matches!(next.opcode, IFEQ | IFNE));
                self.plan_call(method_id, instruction, tested, patch)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `tested`: the next instruction branches on the call's result.
    fn plan_call(
        &mut self,
        method_id: u32,
        instruction: &Instruction<'_>,
        tested: bool,
        patch: &mut Patch,
    ) -> Result<(), PlanError> {
        let (Operands::Constant(index) | Operands::InvokeInterface { index, .. }) =
            instruction.operands
        else {
            return Ok(());
        };
        let member = self
            .class
            .constant_pool
            .member_ref(index)
            .map_err(PlanError::Parse)?;
        let exit_probe = match (
            instruction.opcode,
            &*member.class,
            &*member.name,
            &*member.descriptor,
        ) {
            (opcode::INVOKESTATIC, "java/lang/System", "exit", "(I)V") => {
                Some(ProbeMethod::SystemExit)
            }
            (opcode::INVOKEVIRTUAL, "java/lang/Runtime", "exit", "(I)V") => {
                Some(ProbeMethod::RuntimeExit)
            }
            (opcode::INVOKEVIRTUAL, "java/lang/Runtime", "halt", "(I)V") => {
                Some(ProbeMethod::RuntimeHalt)
            }
            _ => None,
        };
        if let Some(probe) = exit_probe {
            // Same stack effect (the receiver becomes the first argument).
            patch.replacement = Some(vec![self.call(probe)?]);
            return Ok(());
        }
        if member.class == PROBE_CLASS || (self.is_project_class)(&member.class) {
            return Ok(());
        }
        let descriptor = MethodDescriptor::parse(&member.descriptor)
            .map_err(|kind| PlanError::Parse(testgen_classfile::ParseError::new(0, kind)))?;
        let (dup, probe) = match descriptor.return_type {
            None => (None, ProbeMethod::Returned),
            Some(FieldType::Base(BaseType::Long)) => (Some(Snippet::Dup2), ProbeMethod::ResultLong),
            Some(FieldType::Base(BaseType::Double)) => {
                (Some(Snippet::Dup2), ProbeMethod::ResultDouble)
            }
            Some(FieldType::Base(BaseType::Float)) => {
                (Some(Snippet::Dup), ProbeMethod::ResultFloat)
            }
            Some(FieldType::Base(_)) => (Some(Snippet::Dup), ProbeMethod::ResultInt),
            Some(_) => (Some(Snippet::Dup), ProbeMethod::ResultObject),
        };
        let measured =
            MeasuredCall::of(&member.class, &member.name, &member.descriptor).filter(|_| tested);
        let site = self.site(
            method_id,
            instruction.offset,
            SiteKind::ExternalCall {
                owner: member.class.into_owned(),
                name: member.name.into_owned(),
                descriptor: member.descriptor.into_owned(),
            },
        );
        if let Some(measured) = measured {
            // The operands, duplicated, and the test's code go to a probe
            // before the call; the call itself is unchanged.
            let (operands, test, probe) = match measured {
                MeasuredCall::String(StringTest::IsEmpty) => (
                    vec![Snippet::Dup, Snippet::AconstNull],
                    StringTest::IsEmpty as i16,
                    ProbeMethod::StringTest,
                ),
                MeasuredCall::String(test) => {
                    (vec![Snippet::Dup2], test as i16, ProbeMethod::StringTest)
                }
                MeasuredCall::StaticEquals => (
                    vec![Snippet::Dup2],
                    StringTest::Equals as i16,
                    ProbeMethod::StringTest,
                ),
                MeasuredCall::Char(test) => {
                    (vec![Snippet::Dup], test as i16, ProbeMethod::CharTest)
                }
            };
            patch.before.extend(operands);
            patch
                .before
                .extend([Snippet::Sipush(test), self.push(site)?, self.call(probe)?]);
        }
        patch.after.extend(dup);
        patch.after.extend([self.push(site)?, self.call(probe)?]);
        Ok(())
    }

    fn site(&mut self, method: u32, offset: u32, kind: SiteKind) -> u32 {
        let id = self.ids.next_site;
        self.ids.next_site += 1;
        self.sites.push(Site {
            id,
            method,
            offset,
            kind,
        });
        id
    }

    fn push(&mut self, id: u32) -> Result<Snippet, PlanError> {
        match i16::try_from(id) {
            Ok(value) => Ok(Snippet::Sipush(value)),
            Err(_) => {
                let value = i32::try_from(id).map_err(|_| PlanError::PoolFull)?;
                Ok(Snippet::LdcW(self.pool.integer(value)?))
            }
        }
    }

    fn call(&mut self, probe: ProbeMethod) -> Result<Snippet, PlanError> {
        Ok(Snippet::InvokeStatic(self.pool.probe_method(probe)?))
    }
}

#[derive(Debug)]
pub(crate) enum PlanError {
    PoolFull,
    Parse(testgen_classfile::ParseError),
}

impl From<PoolFull> for PlanError {
    fn from(_: PoolFull) -> Self {
        PlanError::PoolFull
    }
}
