//! Soulacy: the agent package and its install sidecar, which share the calendar version,
//! the namespaced package id and the RFC 3339 timestamps.

pub mod package;
pub mod sidecar;
