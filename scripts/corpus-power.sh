#!/usr/bin/env bash
# Measures the corpus's power on a part of the reference and appends it to the record
# (docs/corpus-power/mutants.jsonl, rendered into docs/corpus-power.md and .json).
#
#   scripts/corpus-power.sh --file crates/reference/src/soul_kit.rs
#   scripts/corpus-power.sh --shard 3/8
#   scripts/corpus-power.sh --re 'soul_md\.rs:.* in Walker'
#   scripts/corpus-power.sh -j 2                 # the whole reference (about 70 minutes)
#
# Arguments go to cargo-mutants as they are (`--file`, `--shard`, `--re`, `-j`, ...). A
# file given with `--file` is measured whole, so its old lines in the record are replaced;
# otherwise each measured mutant replaces its own line. Measure a clean checkout: the
# record names the commit measured. Needs cargo-mutants (`cargo install cargo-mutants
# --locked`). Steps:
#  1. both oracles must pass on the tree as it is (so `--baseline skip` is safe below:
#     cargo-mutants 27.1 would run the baseline against the mutated package's own tests);
#  2. every mutant of the part against the verdict oracle (.cargo/mutants.toml);
#  3. the survivors against the diagnostics oracle (exact diagnostics and locations);
#  4. `cargo xtask corpus-power record` merges both runs into the record and renders it.
set -euo pipefail
# --help prints the comment above (how to use it) and does nothing else.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
    exit 0
fi
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "cargo-mutants is required: cargo install cargo-mutants --locked" >&2
    exit 2
fi
commit=$(git rev-parse --short=12 HEAD)
if [ -n "$(git status --porcelain -- crates/reference cases)" ]; then
    echo "warning: crates/reference or cases has uncommitted changes; the record will name $commit" >&2
fi
measured=$(date -u +%Y-%m-%d)

# The files measured whole (named with --file / -f), and the parallel jobs, which the
# survivors' run takes too.
whole=()
jobs=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[$i]}" in
        --file | -f) whole+=("${args[$((i + 1))]}") ;;
        --file=*) whole+=("${args[$i]#--file=}") ;;
        --jobs | -j) jobs=(-j "${args[$((i + 1))]}") ;;
        --jobs=*) jobs=(-j "${args[$i]#--jobs=}") ;;
    esac
done

out=target/corpus-power
rm -rf "$out"
mkdir -p "$out"

echo "== the oracles pass on the unmutated reference"
cargo test --quiet -p soulcheck-oracle --test verdicts --test diagnostics

echo "== the verdict oracle on every mutant of the part"
# cargo-mutants exits 2 when mutants survive and 3 on timeouts: both are results here. The
# timeout is twenty times the verdict oracle's run (about 3 s), so a loaded machine does not
# turn a slow run into a "caught" timeout.
status=0
cargo mutants -p soulcheck-reference --baseline skip --timeout 60 -o "$out/verdicts" "$@" \
    || status=$?
case "$status" in 0 | 2 | 3) ;; *) exit "$status" ;; esac

survivors="$out/verdicts/mutants.out/missed.txt"
diagnostics=()
if [ -s "$survivors" ]; then
    echo "== the diagnostics oracle on the $(wc -l < "$survivors") survivors"
    # One exact pattern per survivor: its name with every regex metacharacter escaped.
    patterns=()
    while IFS= read -r name; do
        patterns+=(--re "^$(printf '%s' "$name" | sed 's/[][\\.^$*+?(){}|/-]/\\&/g')\$")
    done < "$survivors"
    status=0
    cargo mutants -p soulcheck-reference --baseline skip --timeout 60 -o "$out/diagnostics" \
        "${jobs[@]}" "${patterns[@]}" -- --test diagnostics || status=$?
    case "$status" in 0 | 2 | 3) ;; *) exit "$status" ;; esac
    diagnostics=("$out/diagnostics")
fi

echo "== recording"
cargo xtask corpus-power record "$out/verdicts" "${diagnostics[@]}" "$measured" "$commit" \
    --whole "${whole[@]}"
