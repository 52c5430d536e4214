#!/usr/bin/env bash
# Certifies the reference through the harness and corpus crates from outside the
# workspace, as a Rust implementer's crate would: copies examples/implementer to a
# temporary directory, points its path dependencies at this checkout, and runs its
# `cargo test` (one trial per corpus case). The workspace's lock file pins the same
# dependency versions.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/implementer "$work/implementer"
sed -i "s#path = \"\.\./\.\./#path = \"$root/#g" "$work/implementer/Cargo.toml"
cp Cargo.lock "$work/implementer/Cargo.lock"
CARGO_TARGET_DIR="$root/target" \
    cargo test --offline --manifest-path "$work/implementer/Cargo.toml" --test conformance -- --quiet
