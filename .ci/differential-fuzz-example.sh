#!/usr/bin/env bash
# The differential cargo-fuzz template (examples/differential-fuzz) from outside the
# workspace, as a Rust implementer's crate would use it: copied to a temporary directory,
# its path dependencies pointed at this checkout, built with cargo-fuzz and run for a few
# seconds on every format. Its "implementation" is the reference, so any crash (a
# disagreement with the reference, or a panic) fails the step.
#
#   .ci/differential-fuzz-example.sh [SECONDS]     (default: 5 per format)
#   .ci/differential-fuzz-example.sh --check       (compile it only, with stable cargo)
#
# Running needs a nightly toolchain and cargo-fuzz; skipped without nightly.
# SOULCHECK_FUZZ_TARGET_DIR puts the build elsewhere (CI keeps it across runs) and
# SOULCHECK_FUZZ_FLAGS passes build flags, as for fuzz/smoke.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds="${1:-5}"
read -r -a flags <<< "${SOULCHECK_FUZZ_FLAGS:-}"
copy() {
    cp -r examples/differential-fuzz "$1/fuzz"
    sed -i "s#path = \"\.\./\.\./#path = \"$root/#g" "$1/fuzz/Cargo.toml"
    # The workspace's lock pins every shared dependency; cargo adds libfuzzer-sys to it.
    cp Cargo.lock "$1/fuzz/Cargo.lock"
}
if [ "$seconds" = --check ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    copy "$work"
    cargo check --quiet --manifest-path "$work/fuzz/Cargo.toml" --all-targets \
        --target-dir "$root/target"
    echo "differential fuzz example: compiles against this checkout"
    exit 0
fi
if ! cargo +nightly --version >/dev/null 2>&1 || ! cargo fuzz --version >/dev/null 2>&1; then
    echo "differential fuzz example: no nightly toolchain or no cargo-fuzz; skipped"
    exit 0
fi
target_dir="${SOULCHECK_FUZZ_TARGET_DIR:-$root/target/differential-fuzz}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy "$work"
cd "$work"
cargo +nightly fuzz build "${flags[@]}" --fuzz-dir fuzz --target-dir "$target_dir" differential
for format in soul-kit skill-package soulacy-package soulacy-sidecar compose-bundle soul-md; do
    log="$work/$format.log"
    if SOULCHECK_FORMAT=$format cargo +nightly fuzz run "${flags[@]}" --fuzz-dir fuzz \
        --target-dir "$target_dir" differential -- -max_total_time="$seconds" \
        -print_final_stats=1 -timeout=30 -rss_limit_mb=4096 >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        echo "differential fuzz example: $format, ${runs:-?} inputs, no finding"
    else
        tail -n 40 "$log"
        echo "differential fuzz example: $format failed (log above)" >&2
        exit 1
    fi
done
