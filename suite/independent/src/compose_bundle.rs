//! agent-compose bundles (not written yet).

use crate::{Input, Outcome, Settings};

crate::mistakes! {
    /// The planted mistakes of this format.
    pub enum Planted for ComposeBundle {
    }
}

/// Validates one input.
pub fn validate(_input: Input<'_>, _settings: &Settings<'_>) -> Outcome {
    Outcome::decline("not written yet")
}
