//! Decoding everything: [`ClassFile::check`] walks every constant, member,
//! attribute, instruction, descriptor and signature, so one call says
//! whether the whole class file is readable. The corpus and corruption tests
//! use it to exercise every decoder; tools use it to report bad input early.

use crate::attribute::{Attribute, AttributeInfo};
use crate::class::ClassFile;
use crate::constant_pool::ConstantPool;
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::{ErrorKind, ParseError, Result};
use crate::signature::{ClassSignature, MethodSignature, ReferenceTypeSignature};

/// What an attribute list belongs to; it decides how a `Signature` parses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    Class,
    Field,
    Method,
    RecordComponent,
    Code,
}

impl ClassFile<'_> {
    /// Decodes and validates the whole class file. Returns the first problem.
    pub fn check(&self) -> Result<()> {
        self.constant_pool.check()?;
        self.name()?;
        self.super_name()?;
        self.interface_names()?;
        for field in &self.fields {
            field.name(self)?;
            let descriptor = field.descriptor(self)?;
            at(
                &self.constant_pool,
                field.descriptor_index,
                FieldType::parse(&descriptor),
            )?;
            self.check_attributes(&field.attributes, Owner::Field)?;
        }
        for method in &self.methods {
            method.name(self)?;
            let descriptor = method.descriptor(self)?;
            at(
                &self.constant_pool,
                method.descriptor_index,
                MethodDescriptor::parse(&descriptor),
            )?;
            self.check_attributes(&method.attributes, Owner::Method)?;
        }
        self.check_attributes(&self.attributes, Owner::Class)
    }

    fn check_attributes(&self, attributes: &[Attribute<'_>], owner: Owner) -> Result<()> {
        let pool = &self.constant_pool;
        for attribute in attributes {
            match attribute.parse(self)? {
                AttributeInfo::Code(code) => {
                    for instruction in code.instructions() {
                        instruction?;
                    }
                    for handler in &code.exception_table {
                        pool.optional_class_name(handler.catch_type)?;
                    }
                    self.check_attributes(&code.attributes, Owner::Code)?;
                }
                AttributeInfo::Signature(index) => {
                    let text = pool.utf8(index)?;
                    match owner {
                        Owner::Class => at(pool, index, ClassSignature::parse(&text)).map(drop)?,
                        Owner::Method => {
                            at(pool, index, MethodSignature::parse(&text)).map(drop)?
                        }
                        Owner::Field | Owner::RecordComponent => at(
                            pool,
                            index,
                            ReferenceTypeSignature::parse_field_signature(&text),
                        )
                        .map(drop)?,
                        Owner::Code => {}
                    }
                }
                AttributeInfo::SourceFile(index) => {
                    pool.utf8(index)?;
                }
                AttributeInfo::Exceptions(classes)
                | AttributeInfo::NestMembers(classes)
                | AttributeInfo::PermittedSubclasses(classes) => {
                    for index in classes {
                        pool.class_name(index)?;
                    }
                }
                AttributeInfo::NestHost(index) => {
                    pool.class_name(index)?;
                }
                AttributeInfo::InnerClasses(classes) => {
                    for class in classes {
                        pool.class_name(class.inner_class_info_index)?;
                        pool.optional_class_name(class.outer_class_info_index)?;
                        if class.inner_name_index != 0 {
                            pool.utf8(class.inner_name_index)?;
                        }
                    }
                }
                AttributeInfo::EnclosingMethod {
                    class_index,
                    method_index,
                } => {
                    pool.class_name(class_index)?;
                    if method_index != 0 {
                        pool.name_and_type(method_index)?;
                    }
                }
                AttributeInfo::LocalVariableTable(variables)
                | AttributeInfo::LocalVariableTypeTable(variables) => {
                    for variable in variables {
                        pool.utf8(variable.name_index)?;
                        pool.utf8(variable.type_index)?;
                    }
                }
                AttributeInfo::BootstrapMethods(methods) => {
                    for method in methods {
                        pool.get(method.method_ref)?;
                        for &argument in &method.arguments {
                            pool.get(argument)?;
                        }
                    }
                }
                AttributeInfo::MethodParameters(parameters) => {
                    for parameter in parameters.iter().filter(|p| p.name_index != 0) {
                        pool.utf8(parameter.name_index)?;
                    }
                }
                AttributeInfo::Record(components) => {
                    for component in components {
                        pool.utf8(component.name_index)?;
                        let descriptor = pool.utf8(component.descriptor_index)?;
                        at(
                            pool,
                            component.descriptor_index,
                            FieldType::parse(&descriptor),
                        )?;
                        self.check_attributes(&component.attributes, Owner::RecordComponent)?;
                    }
                }
                AttributeInfo::ConstantValue(index) => {
                    pool.get(index)?;
                }
                AttributeInfo::StackMapTable(_)
                | AttributeInfo::LineNumberTable(_)
                | AttributeInfo::Synthetic
                | AttributeInfo::Deprecated
                | AttributeInfo::Other(_) => {}
            }
        }
        Ok(())
    }
}

/// Attaches the offset of constant `index` to an error from a text parser.
fn at<T>(
    pool: &ConstantPool<'_>,
    index: u16,
    result: std::result::Result<T, ErrorKind>,
) -> Result<T> {
    result.map_err(|kind| ParseError::new(pool.offset_of(index), kind))
}
