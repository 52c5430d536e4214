//! The implementation under test. In a real implementer's crate this is their validator;
//! this example re-exports soulcheck's reference so that its certification must pass.

pub use soulcheck_reference::{check, Context, Format, Input, Report};
