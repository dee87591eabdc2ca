//! How to obtain a value of any type a public API takes, as a person would
//! write it:
//!
//! - [`recipes`]: the ways to build a value of a reference type from the
//!   program (constructors of its implementations, factories, constants,
//!   literals of the JDK's value types), computed once per type;
//! - [`generics`]: what a generic parameter holds (`List<Money>`), from the
//!   method's signature;
//! - [`jdk`]: the catalogue of JDK types (collections, streams, numbers,
//!   readers...) and the readable way to make each;
//! - [`template`]: a [`Template`] of a call, the statements that build its
//!   receiver and arguments with typed holes where values are to be chosen,
//!   bounded whatever the types' shape;
//! - [`instantiate`]: values in the holes ([`HoleValues`]) give a plan, with
//!   the origin of every statement;
//! - [`filled`]: values held by hole path ([`FilledHoles`]), captured from
//!   any [`HoleValues`] (a solver's model) for the search to start from;
//! - [`contexts`]: the call sequences that prepare a receiver;
//! - [`effects`]: which getters may change state, so that describing a
//!   value never changes it.
//!
//! The symbolic engine encodes holes as solver variables; a search fills
//! the same holes with values. Neither concern lives here.
//!
//! Architecture invariants: building the recipes of any type costs work
//! linear in the program's size, and a template never has more than
//! [`Bounds::max_holes`] holes; no I/O, no solver.

pub mod contexts;
pub mod effects;
pub mod filled;
pub mod generics;
pub mod instantiate;
pub mod jdk;
pub mod recipes;
pub mod template;

pub use contexts::{contexts, preparing_calls, ContextBounds, PreparingCalls};
pub use filled::FilledHoles;
pub use instantiate::{ArrayElements, Chosen, Filled, HoleValues, Instantiation, Origin, Target};
pub use recipes::{boxed_base, public_constructors, Recipe, Recipes};
pub use template::{
    type_descriptor, Bounds, Choice, Hole, HoleKind, PreparingCall, Template, TemplateError,
};
