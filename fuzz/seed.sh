#!/usr/bin/env bash
# Fills the seed corpus of every fuzz target: each case input of the corpus goes to the
# targets that read its format (fuzz/corpus/<target>/<format>-<case-id>), and the curated
# seeds committed under fuzz/seeds/<target>/ are added. fuzz/corpus is git-ignored; run
# this again after the corpus changes.
#
#   fuzz/seed.sh [DIR]        (default: fuzz/corpus)
set -euo pipefail
# --help prints the comment above (how to use it) and does nothing else.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
    exit 0
fi
cd "$(dirname "$0")/.."
out="${1:-fuzz/corpus}"
cargo run -q -p soulcheck-fuzz-tool --bin soulcheck-fuzz -- seed "$out"
for dir in fuzz/seeds/*/; do
    target="$(basename "$dir")"
    mkdir -p "$out/$target"
    cp "$dir"* "$out/$target/"
done
