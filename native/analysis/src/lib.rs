//! Static facts about methods and classes, for the symbolic engine, the
//! object constructor and the problem reporter.
//!
//! - [`cfg`](mod@cfg): the control-flow graph of a method, with typed edges.
//! - [`dominators`] and [`loops`]: dominators (Cooper–Harvey–Kennedy) and
//!   natural loops with their back edges and exits.
//! - [`control`](mod@control): control dependence (which branch outcomes
//!   decide whether a block runs), from post-dominators.
//! - [`access`]: the fields a method reads and writes, its call sites, the
//!   parameters it stores into fields, and the Palus-style merged view per
//!   class, with an index of field writers (setters, constructors).
//! - [`dependence`]: where the values a branch tests come from (calls,
//!   fields several reads deep, parameters), for explaining why it stayed
//!   uncovered.
//! - [`hierarchy`]: supertypes, subtypes and instantiable classes over a set
//!   of parsed classes.
//! - [`statics`]: a class's mutable static fields, and the methods that
//!   might reset them.
//!
//! Architecture invariants:
//! - Pure: input is parsed class files ([`testgen_classfile::ClassFile`]),
//!   output is owned data. No I/O, no printing.
//! - No panic on any input: malformed bytecode (a jump into the middle of an
//!   instruction, code that runs off its end) is an [`AnalysisError`].
//! - Deterministic: ids follow offsets or class-file order, every set and
//!   map in a result is ordered (`BTreeMap`, `BTreeSet`, sorted `Vec`).

pub mod access;
pub mod cfg;
pub mod control;
pub mod dependence;
pub mod dominators;
pub mod error;
pub mod hierarchy;
pub mod loops;
pub mod statics;

pub use access::{
    CallSite, ClassAccess, DynamicCallSite, FieldAccess, FieldRef, FieldWriter, MergedAccess,
    MethodFacts, MethodKey, MethodRef, ParameterStore,
};
pub use cfg::{Block, BlockId, Cfg, Edge, EdgeId, EdgeKind};
pub use control::ControlDependence;
pub use dependence::{branch_operands, popped, Origin};
pub use dominators::Dominators;
pub use error::{AnalysisError, Result};
pub use hierarchy::{jdk_supertypes, Hierarchy, MemberInfo, TypeInfo};
pub use loops::{Loop, LoopExit, LoopId, Loops};
pub use statics::{mutable_static_fields, reset_candidates, Mutability, StaticField};
