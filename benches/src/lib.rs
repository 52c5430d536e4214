//! soulcheck-benches holds no library code; its criterion benches live in `benches/`.
