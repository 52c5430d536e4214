//! The `soulcheck` command line as a library: the reference implementation adapted to the
//! harness's `Validator` trait ([`Reference`]) and the persistent-protocol server
//! ([`serve`]), shared by the binary, the `cargo test` suite and the benchmarks, and the
//! bounded read of the document `check` is given ([`read`]).
//!
//! This crate is where the reference and the harness meet; neither knows the other.

pub mod adapter;
pub mod read;
pub mod serve;

pub use adapter::Reference;
