#!/usr/bin/env bash
# The fuzz smoke test: builds every cargo-fuzz target and runs each for a fixed time from
# the seed corpus, with its dictionary, then prints executions per second per target. A
# crash (a panic, a broken invariant, a timeout, running out of memory) fails the run and
# names the artifact to triage (fuzz/triage.sh).
#
#   fuzz/smoke.sh [SECONDS]       (default: 10 per target)
#
# Needs a nightly toolchain (cargo +nightly); installs cargo-fuzz when it is missing. With
# no nightly toolchain it says so and exits 0, so the stable checks still pass.
# SOULCHECK_FUZZ_TARGET_DIR puts the build elsewhere (CI keeps it across runs), and
# SOULCHECK_FUZZ_FLAGS passes build flags (e.g. "--sanitizer none").
set -euo pipefail
# --help prints the comment above (how to use it) and does nothing else.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
    exit 0
fi
cd "$(dirname "$0")"
seconds="${1:-10}"
target_dir="${SOULCHECK_FUZZ_TARGET_DIR:-target}"
read -r -a flags <<< "${SOULCHECK_FUZZ_FLAGS:-}"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz smoke: no nightly toolchain (rustup toolchain install nightly); skipped"
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz smoke: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

./seed.sh "$PWD/corpus" >/dev/null
echo "fuzz smoke: building every target"
cargo +nightly fuzz build "${flags[@]}" --target-dir "$target_dir"

mkdir -p artifacts logs
failed=()
total_runs=0
printf '%-28s %12s %10s\n' target executions exec/s
for target in $(cargo fuzz list); do
    log="logs/$target.log"
    if cargo +nightly fuzz run "${flags[@]}" --target-dir "$target_dir" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -dict="dict/$target.dict" -print_final_stats=1 \
        -timeout=30 -rss_limit_mb=4096 >"$log" 2>&1; then
        status=""
    else
        status="  CRASH (see $log)"
        failed+=("$target")
    fi
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
    total_runs=$((total_runs + ${runs:-0}))
    printf '%-28s %12s %10s%s\n' "$target" "${runs:-?}" "${speed:-?}" "$status"
done
echo "fuzz smoke: $total_runs executions, ${seconds}s per target"
if ((${#failed[@]})); then
    for target in "${failed[@]}"; do
        echo "== $target"
        grep -E "panicked|invariant|ERROR|SUMMARY|Test unit written" "logs/$target.log" | head -n 8 || true
    done
    echo "fuzz smoke: ${#failed[@]} target(s) crashed; turn each artifact into a case with fuzz/triage.sh TARGET ARTIFACT"
    exit 1
fi
