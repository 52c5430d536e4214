#!/usr/bin/env bash
# Certifies the independent implementation (suite/independent) through `soulcheck run`, as
# any validator binary is certified: clean in both profiles, then with each planted
# mistake (switch) in the spec profile, and prints for each switch whether the corpus
# refused it and on which cases. `cargo test -p soulcheck-suite --test independent` checks
# the same in process; this is the command line's view, with every report kept.
#
#   scripts/independent.sh FORMAT [SWITCH...]     # default: every switch of FORMAT
#   scripts/independent.sh --clean FORMAT         # the clean implementation only; exit 1
#                                                 # unless certified in both profiles (CI)
#
# Environment: SOULCHECK (a soulcheck binary; default: built in release), CORPUS (a cases/
# directory; default: this checkout's), OUT (where reports go; default:
# target/independent/FORMAT).
set -euo pipefail
# --help prints the comment above (how to use it) and does nothing else.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
    exit 0
fi
cd "$(dirname "$0")/.."
clean_only=false
if [ "${1:-}" = --clean ]; then
    clean_only=true
    shift
fi
format=${1:?usage: scripts/independent.sh [--clean] FORMAT [SWITCH...]}
shift
cargo build --release --quiet -p soulcheck-independent
if [ -z "${SOULCHECK:-}" ]; then
    cargo build --release --quiet -p soulcheck
    SOULCHECK=$PWD/target/release/soulcheck
fi
corpus=${CORPUS:-$PWD/cases}
out=${OUT:-$PWD/target/independent/$format}
independent=$PWD/target/release/soulcheck-independent
rm -rf "$out"
mkdir -p "$out"

# Runs one certification; prints "certified" or "refused: <first failing cases>".
certify() {
    local name=$1 profile=$2 mistake=$3
    local command="$independent --format {format} --context {context} {path}"
    if [ -n "$mistake" ]; then
        command="$command --mistake $mistake"
    fi
    "$SOULCHECK" run --quiet --corpus "$corpus" --format "$format" --operation validate \
        --profile "$profile" --validator "$command" --name "independent${mistake:+ ($mistake)}" \
        --report "$out/$name" >"$out/$name.txt" 2>&1 || true
    python3 - "$out/$name/certificates/$format.json" <<'PY'
import json, sys
try:
    certificate = json.load(open(sys.argv[1]))
except OSError:
    print("no certificate (see the .txt beside the report)")
    sys.exit()
if certificate["certified"]:
    print("certified")
else:
    reasons = certificate["reasons"]
    shown = ", ".join(reasons[:4]) + (f" and {len(reasons) - 4} more" if len(reasons) > 4 else "")
    print(f"refused ({len(reasons)}): {shown}")
PY
}

spec=$(certify clean-spec spec '')
strict=$(certify clean-strict strict '')
echo "$format, clean, spec profile:   $spec"
echo "$format, clean, strict profile: $strict"
if $clean_only; then
    if [ "$spec" = certified ] && [ "$strict" = certified ]; then
        exit 0
    fi
    echo "the clean independent implementation of $format is not certified; reports in $out" >&2
    exit 1
fi
if [ $# -eq 0 ]; then
    mapfile -t switches < <("$independent" --format "$format" --list | cut -f1)
else
    switches=("$@")
fi
for switch in "${switches[@]}"; do
    printf '%-40s %s\n' "$switch" "$(certify "$switch" spec "$switch")"
done
