//! The `soulcheck` command line as a library: the reference implementation adapted to the
//! harness's `Validator` trait ([`Reference`], from `soulcheck-oracle`), the structure-aware generators adapted to
//! the harness's differential `Source` ([`generated`]), the persistent-protocol server
//! ([`serve`]) and the bounded read of the document `check` is given ([`read`]), shared by
//! the binary, the `cargo test` suite, the benchmarks and a Rust implementer's differential
//! fuzz target.
//!
//! This crate and `soulcheck-oracle` are where the reference and the harness meet; neither
//! knows the other.

pub mod generated;
pub mod read;
pub mod serve;

pub use soulcheck_oracle::{observation, Reference};
