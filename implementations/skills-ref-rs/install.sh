#!/usr/bin/env bash
# Installs skills-ref-rs from crates.io into PREFIX (PREFIX/bin/skills-ref) with
# `cargo install --locked`: the version below, built with the dependency versions of its
# published Cargo.lock.
set -euo pipefail
prefix=$1
rm -rf "$prefix"
cargo install --quiet --locked --root "$prefix" skills-ref-rs --version 0.1.1
