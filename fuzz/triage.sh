#!/usr/bin/env bash
# Turns a fuzz crash artifact into a minimised regression case of the corpus:
#
#   fuzz/triage.sh TARGET ARTIFACT [CASE-ID]
#
# 1. replays the artifact on stable to show which invariant breaks;
# 2. minimises it with `cargo +nightly fuzz tmin` (skipped without nightly/cargo-fuzz);
# 3. writes cases/<format>/<CASE-ID>/ (default ID: fuzz-<target>-<hash>) holding the
#    document the target checked (for structured targets, the generated document; for a
#    bundle target, the tree) and a case.toml whose verdict and diagnostics are the
#    reference's CURRENT output, marked REVIEW;
# 4. prints the review checklist. The case is the contract only once a person has checked
#    it against the spec: see CONTRIBUTING.md, "Triage of a fuzz crash".
set -euo pipefail
# --help prints the comment above (how to use it) and does nothing else.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
    exit 0
fi
cd "$(dirname "$0")/.."
if (($# < 2)); then
    echo "usage: fuzz/triage.sh TARGET ARTIFACT [CASE-ID]" >&2
    exit 2
fi
target="$1"
artifact="$(realpath "$2")"
tool=(cargo run -q -p soulcheck-fuzz-tool --bin soulcheck-fuzz --)

echo "== replay (stable)"
"${tool[@]}" replay "$target" "$artifact" || true

minimised="$artifact"
if cargo +nightly --version >/dev/null 2>&1 && cargo fuzz --version >/dev/null 2>&1; then
    echo "== minimise (cargo +nightly fuzz tmin)"
    before="$(mktemp)"
    ls -1 "fuzz/artifacts/$target" 2>/dev/null | sort > "$before" || true
    (cd fuzz && cargo +nightly fuzz tmin "$target" "$artifact" -- -runs=20000 >/dev/null 2>&1) || true
    newest="$(ls -1t "fuzz/artifacts/$target"/minimized-from-* 2>/dev/null | head -n 1 || true)"
    if [[ -n "$newest" ]]; then
        minimised="$(realpath "$newest")"
        echo "minimised: $(wc -c < "$artifact") -> $(wc -c < "$minimised") bytes ($minimised)"
    fi
    rm -f "$before"
else
    echo "== no nightly toolchain or cargo-fuzz: the artifact is used as it is"
fi

id="${3:-fuzz-${target//_/-}-$(sha256sum "$minimised" | cut -c1-8)}"
echo "== case"
dir="$("${tool[@]}" case "$target" "$minimised" "$id")"
echo "$dir"
format="$(basename "$(dirname "$dir")")"
INSTA_UPDATE=always cargo test -q -p soulcheck-suite -- --exact "$format/$id" >/dev/null 2>&1 || true
cat <<CHECKLIST

Review checklist for cases/$format/$id (nothing here is final yet):
  [ ] the input is what the target checked: $(ls "$dir" | grep -v case.toml | tr '\n' ' ')
  [ ] the verdict in case.toml is what the SPEC requires (it was copied from the reference)
  [ ] each [[diagnostic]] is right by the spec (rule and location); fix the reference if not
  [ ] rules = [...] names every rule the input exercises; the description says what it tests
  [ ] implementation-defined? set verdict, allowed and reference, and the rule's decision
  [ ] the REVIEW lines at the top of case.toml are deleted
  [ ] the snapshot suite/snapshots/$format/$id.snap reads right (blessed just now)
  [ ] cargo test -p soulcheck-suite -- $format/$id passes, and
      cargo run -q -p soulcheck-fuzz-tool --bin soulcheck-fuzz -- replay $target $minimised is ok after the fix
CHECKLIST
