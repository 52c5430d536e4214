//! soulcheck-suite holds no library code; its tests live in `tests/`.
