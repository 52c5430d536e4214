#!/usr/bin/env bash
# CI: the GitHub Action's script (scripts/certify.sh) certifies the reference, reached as
# an implementer's tool would be (`soulcheck check --json` per case), on a small selection,
# as the action runs it: the job summary and outputs go to temporary files standing in for
# GitHub's. Then the files it wrote are checked.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary=$work/step-summary.md
outputs=$work/github-output
echo "## an earlier step" >"$summary"
soulcheck=$PWD/target/release/soulcheck

# The soul-md fingerprint cases use {operation} and {context}; soul-kit's name cases are
# plain documents.
GITHUB_STEP_SUMMARY=$summary \
GITHUB_OUTPUT=$outputs \
SOULCHECK_COMMAND="$soulcheck check --json --format {format} --operation {operation} --context-json {context} {path}" \
SOULCHECK_FORMATS="soul-md, soul-kit" \
SOULCHECK_EXTRA_ARGS="--jobs 2 --case 'soul-md-fingerprint-*' --case \"name-*\"" \
SOULCHECK_NAME="reference via check" \
SOULCHECK_VERSION="$("$soulcheck" --version | cut -d' ' -f2)" \
SOULCHECK_REPORT_DIR=$work/report \
    scripts/certify.sh

fail() {
    echo "github-action: $*" >&2
    exit 1
}
report=$work/report
for file in report.jsonl report.html junit.xml summary.md certificates/soul-md.json \
    certificates/soul-kit.json certificates/soul-md.fingerprint.json; do
    [ -s "$report/$file" ] || fail "$file was not written"
done
tail -n 1 "$report/report.jsonl" | grep -q '"type":"footer"' || fail "report.jsonl has no footer"
grep -q '^## an earlier step$' "$summary" || fail "the job summary was overwritten"
grep -q '^## soulcheck: reference via check ' "$summary" || fail "no summary appended"
grep -q '| soul-md | .* | certified |' "$summary" || fail "soul-md is not certified in the summary"
grep -q '| soul-kit | .* | certified |' "$summary" || fail "soul-kit is not certified in the summary"
grep -qx 'exit-code=0' "$outputs" || fail "exit-code output: $(grep exit-code "$outputs")"
grep -qx 'certified=true' "$outputs" || fail "certified output: $(grep certified "$outputs")"
grep -qx "html=$report/report.html" "$outputs" || fail "no html output"
grep -qx "junit=$report/junit.xml" "$outputs" || fail "no junit output"
grep -q '<testsuites' "$report/junit.xml" || fail "junit.xml is not JUnit"
grep -q 'reference via check' "$report/report.html" || fail "the page does not name the implementation"
cases=$(grep -c '"type":"case"' "$report/report.jsonl")
echo "github-action: scripts/certify.sh certified the reference on $cases cases; summary, outputs, JUnit and the page are in place"
