//! Calls, resolved in the order [`crate::jdk`] documents: a JDK model,
//! else the program's code (followed, to a depth), else the value the run
//! observed; and `invokedynamic`.

use testgen_classfile::attribute::AttributeInfo;
use testgen_classfile::descriptor::{FieldType, MethodDescriptor};
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::{ClassFile, Constant};
use testgen_exec::{ExternalValue, TraceEvent};
use testgen_project::MethodId;
use z3::ast::{Float, BV};

use super::frames::{pop, Frame};
use super::heap::unknown_of;
use super::{class_error, mismatch, Control, Flow, Replay};
use crate::arith::Primitive;
use crate::jdk;
use crate::tree::{Alternative, Decision, Location, Outcome, Step};
use crate::types;
use crate::value::{HeapObject, Sym};

impl<'p, 'a> Replay<'p, 'a> {
    /// The method `key` names, found from `class` upwards (virtual dispatch).
    pub(super) fn resolve_virtual(&self, class: &str, key: &MethodId) -> Option<MethodId> {
        types::supertypes(self.hierarchy, class)
            .into_iter()
            .find_map(|c| {
                let candidate = MethodId::of(&c, &key.name, &key.descriptor);
                self.program.method(&candidate).map(|_| candidate)
            })
    }

    pub(super) fn invoke(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let (Operands::Constant(index) | Operands::InvokeInterface { index, .. }) =
            instruction.operands
        else {
            return mismatch("a call without a method reference");
        };
        let frame = frames.last_mut().expect("a frame");
        let member = frame
            .class
            .constant_pool
            .member_ref(index)
            .map_err(class_error)?;
        let key = MethodId::of(&member.class, &member.name, &member.descriptor);
        let descriptor = MethodDescriptor::parse(&member.descriptor).map_err(class_error)?;
        let mut args = Vec::new();
        for _ in &descriptor.parameters {
            args.push(pop(frame)?);
        }
        args.reverse();
        let is_static = instruction.opcode == opcode::INVOKESTATIC;
        let receiver = if is_static { None } else { Some(pop(frame)?) };
        let result_type = descriptor.return_type;
        if let Some(receiver) = &receiver {
            if key.name != "<init>" && !self.null_check(frames, receiver)? {
                return Ok(Control::Frames);
            }
        }
        // Resolved in the order `crate::jdk` documents: a model, else the
        // program's own code, else the value the run observed.
        let family = jdk::family(&key, receiver.as_ref().and_then(|r| self.object(r)));
        if family.is_none() {
            if let Some(control) = self.follow(frames, &key, &receiver, &args, &result_type)? {
                return Ok(control);
            }
        }
        let frame = frames.last().expect("a frame");
        let site = frame
            .probe
            .and_then(|m| self.program.external_site(m, frame.pc));
        let call = jdk::Call {
            method: &key,
            receiver: receiver.as_ref(),
            args: &args,
        };
        let observed = match site {
            Some(site) => match self.external_result(site) {
                Some(value) => Some(value),
                None => {
                    // It threw; a model may still say when. Where none
                    // does, the path from here rests on what this run's
                    // call did (other inputs might make it return): no
                    // proof may use it (`DigestUtils.isAvailable`: every
                    // name exploring tried was refused, and the outcome
                    // for a known algorithm was "proven" infeasible).
                    let modelled =
                        family.is_some_and(|family| self.modelled_throw(frames, family, &call));
                    if !modelled {
                        self.rests_on_observed = true;
                    }
                    let error = self.fresh(HeapObject::Opaque {
                        class: "java/lang/Throwable".into(),
                    });
                    return self.throw(frames, error);
                }
            },
            None => None,
        };
        let observed = observed.map(|value| self.concretise(value));
        let Some(family) = family else {
            let result = observed
                .map(|value| self.take_observed(value))
                .or_else(|| unknown(&result_type));
            return self.push_result(frames, result_type.as_ref().and(result));
        };
        if let Some(throws) = jdk::throws(self, family, &call) {
            // The call did not throw this time; the other way is a decision.
            self.decide(
                frames,
                Outcome::Proceeds,
                Some(throws.not()),
                vec![(Outcome::Throws, Some(throws))],
            );
        }
        if let Some(assumed) = jdk::assumed(self, family, &call) {
            let frame = frames.last().expect("a frame");
            let (clause, observed) = self.clause_text(&assumed.clause);
            self.steps.push(Step {
                taken: Decision {
                    at: Location::of(frame.method.clone(), frame.pc),
                    outcome: Outcome::Proceeds,
                    clause,
                    declares: assumed.declares,
                    observed,
                },
                alternatives: Vec::new(),
            });
            return self.push_result(frames, assumed.result);
        }
        let modelled = jdk::result(self, family, &call, observed.as_ref());
        if modelled.is_some() && jdk::leans_on_observed(family, &call) {
            self.rests_on_observed = true;
        }
        if result_type.is_none() {
            return self.push_result(frames, None);
        }
        let result = modelled
            .or_else(|| observed.map(|value| self.take_observed(value)))
            .or_else(|| unknown(&result_type));
        self.push_result(frames, result)
    }

    /// A call into the program, followed when the trace shows the callee
    /// ran (and the depth allows; beyond it, the callee's events are
    /// skipped and its result is unknown). `None`: the call did not enter
    /// the program.
    fn follow(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        key: &MethodId,
        receiver: &Option<Sym>,
        args: &[Sym],
        result_type: &Option<FieldType<'_>>,
    ) -> Flow<Option<Control>> {
        let Some(TraceEvent::Enter { method }) = self.peek() else {
            return Ok(None);
        };
        let method = *method;
        let Some(callee) = self
            .program
            .method_of_probe(method)
            .filter(|c| c.name == key.name && c.descriptor == key.descriptor)
            .cloned()
        else {
            return Ok(None);
        };
        if frames.len() > self.options.call_depth {
            self.skip_call(method);
            return self.push_result(frames, unknown(result_type)).map(Some);
        }
        self.cursor += 1;
        let mut values: Vec<Sym> = receiver.iter().cloned().collect();
        values.extend_from_slice(args);
        let frame = self.frame(callee, Some(method), values)?;
        frames.push(frame);
        Ok(Some(Control::Frames))
    }

    /// A modelled call that threw in this run: the step that says when it
    /// throws, and that the solver may steer it to proceed.
    fn modelled_throw(
        &mut self,
        frames: &[Frame<'p, 'a>],
        family: jdk::Family,
        call: &jdk::Call<'_>,
    ) -> bool {
        let frame = frames.last().expect("a frame");
        let at = Location::of(frame.method.clone(), frame.pc);
        if let Some(assumed) = jdk::assumed(self, family, call) {
            let (clause, observed) = self.clause_text(&assumed.clause);
            self.steps.push(Step {
                taken: Decision {
                    at,
                    outcome: Outcome::Throws,
                    clause: None,
                    declares: Vec::new(),
                    observed: false,
                },
                alternatives: vec![Alternative {
                    outcome: Outcome::Proceeds,
                    clause,
                    declares: assumed.declares,
                    observed,
                }],
            });
            true
        } else if let Some(throws) = jdk::throws(self, family, call) {
            let (throws_text, observed) = self.clause_text(&throws);
            let (proceeds_text, _) = self.clause_text(&throws.not());
            self.steps.push(Step {
                taken: Decision {
                    at,
                    outcome: Outcome::Throws,
                    clause: throws_text,
                    declares: Vec::new(),
                    observed,
                },
                alternatives: vec![Alternative {
                    outcome: Outcome::Proceeds,
                    clause: proceeds_text,
                    declares: Vec::new(),
                    observed,
                }],
            });
            true
        } else {
            false
        }
    }

    pub(super) fn push_result(
        &mut self,
        frames: &mut [Frame<'p, 'a>],
        value: impl Into<Option<Sym>>,
    ) -> Flow<Control> {
        if let Some(value) = value.into() {
            frames.last_mut().expect("a frame").stack.push(value);
        }
        Ok(Control::Next)
    }

    /// An observed value as the call's result where nothing models it:
    /// the path rests on it from here on (not on the nothing a `void` call
    /// returns, such as `Object.<init>`).
    fn take_observed(&mut self, value: Sym) -> Sym {
        if !matches!(value, Sym::Unknown { .. }) {
            self.rests_on_observed = true;
        }
        value
    }

    /// What the run observed, as constants (a model may take it as a
    /// hint: `Character` beyond ASCII).
    pub(super) fn concretise(&mut self, value: &ExternalValue) -> Sym {
        use Primitive as P;
        match value {
            ExternalValue::Void => Sym::Unknown { wide: false },
            ExternalValue::Int { value } => Sym::Prim(P::Int(BV::from_i64(i64::from(*value), 32))),
            ExternalValue::Long { value } => Sym::Prim(P::Long(BV::from_i64(*value, 64))),
            ExternalValue::Float { bits } => {
                Sym::Prim(P::Float(Float::from_f32(f32::from_bits(*bits))))
            }
            ExternalValue::Double { bits } => {
                Sym::Prim(P::Double(Float::from_f64(f64::from_bits(*bits))))
            }
            ExternalValue::Object { value: None } => Sym::null(),
            ExternalValue::Object {
                value: Some(object),
            } => self.fresh(HeapObject::Opaque {
                class: object.class.replace('.', "/"),
            }),
        }
    }

    pub(super) fn invoke_dynamic(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let Operands::InvokeDynamic { index } = instruction.operands else {
            return mismatch("invokedynamic without a call site");
        };
        let frame = frames.last_mut().expect("a frame");
        let class = frame.class;
        let (bootstrap, name, descriptor) = match class.constant_pool.get(index) {
            Ok(Constant::InvokeDynamic {
                bootstrap_method_attr_index,
                name_and_type_index,
            }) => {
                let (name, descriptor) = class
                    .constant_pool
                    .name_and_type(*name_and_type_index)
                    .map_err(class_error)?;
                (*bootstrap_method_attr_index, name, descriptor)
            }
            _ => return mismatch("invokedynamic without a call site"),
        };
        let parsed = MethodDescriptor::parse(&descriptor).map_err(class_error)?;
        let mut args = Vec::new();
        for _ in &parsed.parameters {
            args.push(pop(frame)?);
        }
        args.reverse();
        let recipe = if name == "makeConcatWithConstants" {
            concat_recipe(class, bootstrap)
        } else {
            None
        };
        let result = match recipe {
            Some(recipe) => {
                jdk::concat(self, &recipe, &args, &parsed.parameters).unwrap_or_else(|| {
                    self.fresh(HeapObject::Opaque {
                        class: "java/lang/String".into(),
                    })
                })
            }
            // A lambda or another call site: an object nobody looks into.
            None => self.fresh(HeapObject::Opaque {
                class: "java/lang/Object".into(),
            }),
        };
        // Lambda bodies that ran are the program's methods: skip their events
        // here, they belong to whoever calls the lambda.
        frames.last_mut().expect("a frame").stack.push(result);
        Ok(Control::Next)
    }
}

fn unknown(result: &Option<FieldType<'_>>) -> Option<Sym> {
    result.as_ref().map(unknown_of)
}

/// The recipe of a `makeConcatWithConstants` call site: its first static
/// bootstrap argument.
fn concat_recipe(class: &ClassFile<'_>, bootstrap: u16) -> Option<Vec<u16>> {
    let Ok(Some(AttributeInfo::BootstrapMethods(methods))) = class.attribute("BootstrapMethods")
    else {
        return None;
    };
    let method = methods.get(usize::from(bootstrap))?;
    let first = *method.arguments.first()?;
    match class.constant_pool.get(first).ok()? {
        Constant::String { string_index } => {
            let text = class.constant_pool.utf8(*string_index).ok()?;
            Some(text.encode_utf16().collect())
        }
        _ => None,
    }
}
