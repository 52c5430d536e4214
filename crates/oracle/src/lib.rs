//! soulcheck-oracle: the reference implementation seen through the harness's `Validator`
//! trait ([`Reference`]), the oracle every run of the reference and every differential
//! campaign judges against, and the verdict oracle ([`verdicts`]) that holds the reference
//! to the corpus exactly as a certification holds any validator to it.
//!
//! The verdict oracle is what the corpus-power measurement (`docs/corpus-power.md`) runs
//! on every mutant of the reference: a mutant it lets through is a wrong implementation
//! the corpus would certify. It needs the reference, the harness and the corpus on disk,
//! and nothing of the command line, so a mutant rebuilds only the reference and this
//! crate.
//!
//! With the command line, this crate is where the reference and the harness meet; neither
//! of those two knows the other.

pub mod adapter;
pub mod verdicts;

pub use adapter::{implementation, observation, Reference};
