#!/usr/bin/env bash
# CI: the GitHub Action's script (scripts/certify.sh) certifies the reference, reached as
# an implementer's tool would be (`soulcheck check --json` per case), on one whole format
# (a certificate covers every case of its format), as the action runs it: the job summary
# and outputs go to temporary files standing in for GitHub's. Then the files it wrote are
# checked, and a second run narrowed by a filter must certify nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary=$work/step-summary.md
outputs=$work/github-output
echo "## an earlier step" >"$summary"
soulcheck=$PWD/target/release/soulcheck

# scripts/certify.sh as the action runs it, the reference reached through `check`:
# OUTPUTS REPORT_DIR FORMATS EXTRA_ARGS (the job summary is shared).
certify() {
    GITHUB_STEP_SUMMARY=$summary \
    GITHUB_OUTPUT=$1 \
    SOULCHECK_COMMAND="$soulcheck check --json --format {format} --operation {operation} --context-json {context} {path}" \
    SOULCHECK_FORMATS=$3 \
    SOULCHECK_EXTRA_ARGS=$4 \
    SOULCHECK_NAME="reference via check" \
    SOULCHECK_VERSION="$("$soulcheck" --version | cut -d' ' -f2)" \
    SOULCHECK_REPORT_DIR=$2 \
        scripts/certify.sh
}

# The soul-md fingerprint cases use {operation} and {context}.
# The report directory's name holds glob characters: certify.sh must name it literally.
certify "$outputs" "$work/r[e]port" soul-md "--jobs 2"

fail() {
    echo "github-action: $*" >&2
    exit 1
}
report=$work/r[e]port
for file in report.jsonl report.html junit.xml summary.md certificates/soul-md.json \
    certificates/soul-md.fingerprint.json; do
    [ -s "$report/$file" ] || fail "$file was not written"
done
tail -n 1 "$report/report.jsonl" | grep -q '"type":"footer"' || fail "report.jsonl has no footer"
grep -q '^## an earlier step$' "$summary" || fail "the job summary was overwritten"
grep -q '^## soulcheck: reference via check ' "$summary" || fail "no summary appended"
grep -q '| soul-md | .* | certified |' "$summary" || fail "soul-md is not certified in the summary"
grep -qx 'exit-code=0' "$outputs" || fail "exit-code output: $(grep exit-code "$outputs")"
grep -qx 'certified=true' "$outputs" || fail "certified output: $(grep certified "$outputs")"
grep -qxF "html=$report/report.html" "$outputs" || fail "no html output"
grep -qxF "junit=$report/junit.xml" "$outputs" || fail "no junit output"
grep -q '<testsuites' "$report/junit.xml" || fail "junit.xml is not JUnit"
grep -q 'reference via check' "$report/report.html" || fail "the page does not name the implementation"
cases=$(grep -c '"type":"case"' "$report/report.jsonl")

# The same validator on a selection (quoted globs, as a workflow writes them) passes every
# case it runs and certifies nothing: a certificate covers a whole format.
narrowed=$work/narrowed-output
certify "$narrowed" "$work/narrowed" soul-kit "--jobs 2 --case 'name-length-*' --case \"name-*\""
grep -qx 'exit-code=0' "$narrowed" || fail "narrowed exit-code output: $(grep exit-code "$narrowed")"
grep -qx 'certified=false' "$narrowed" || fail "a narrowed run certified: $(grep certified "$narrowed")"
grep -q '| soul-kit | .* | not a certification (part of the cases) |' "$summary" \
    || fail "the narrowed run's summary does not say it is not a certification"
# A run that cannot start (exit 2) leaves the report directory as an earlier run wrote it:
# its certificates are not this run's, so the outputs say certified=false.
stale=$work/stale-output
certify "$stale" "$report" no-such-format "" || true
grep -qx 'exit-code=2' "$stale" || fail "stale exit-code output: $(grep exit-code "$stale")"
grep -qx 'certified=false' "$stale" || fail "an earlier run's certificates certified a run that could not start"
[ -s "$report/certificates/soul-md.json" ] || fail "the earlier certificates were not left in place"

echo "github-action: scripts/certify.sh certified the reference on $cases cases; summary, outputs, JUnit and the page are in place; a narrowed run and one that could not start certified nothing"
