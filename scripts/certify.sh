#!/usr/bin/env bash
# Certifies a validator with soulcheck in a CI job: the shell steps of the GitHub Action
# (action.yml), kept here so they run, and are tested, outside GitHub too
# (.ci/github-action.sh runs them on the reference).
#
# It builds soulcheck from this checkout (unless SOULCHECK_BIN names a binary), runs the
# corpus against the validator command with --report, writes the HTML page beside the
# reports, appends the Markdown summary to $GITHUB_STEP_SUMMARY and the paths to
# $GITHUB_OUTPUT (each only when set).
#
# Inputs, from the environment (the action maps its inputs to these):
#   SOULCHECK_COMMAND       the validator command template (required): 'my-tool --json {path}'
#   SOULCHECK_FORMATS       formats, separated by spaces or commas (default: every format)
#   SOULCHECK_PROFILE       spec (default) or strict
#   SOULCHECK_EXPECTATIONS  an expectations file (known failures)
#   SOULCHECK_MAPPING       a mapping file (exit codes and messages of an unmodified tool)
#   SOULCHECK_PERSISTENT    true: the command speaks the persistent protocol
#   SOULCHECK_EXTRA_ARGS    more `soulcheck run` arguments, quoted like a shell's (quotes and
#                           backslashes are honoured; nothing is expanded or run)
#   SOULCHECK_NAME, SOULCHECK_VERSION  the implementation's name and version in every report
#   SOULCHECK_REPORT_DIR    where the reports go (default: soulcheck-report)
#   SOULCHECK_BIN           a soulcheck binary to use instead of building one
#   SOULCHECK_DEFER_EXIT    true: exit 0 after writing everything, leaving the verdict to
#                           the exit-code output (the action fails in a later step, after
#                           uploading the page)
#
# Outputs ($GITHUB_OUTPUT): exit-code, certified (true when every certificate is),
# report-dir, report (report.jsonl), html, junit, summary.
#
# Exit code: that of `soulcheck run` (0 every selected case passed, 1 a failure, 2 it could
# not run), unless SOULCHECK_DEFER_EXIT=true.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${SOULCHECK_COMMAND:?SOULCHECK_COMMAND, the validator command, is required}"
report_dir=${SOULCHECK_REPORT_DIR:-soulcheck-report}
# Every output is one `name=value` line of $GITHUB_OUTPUT: a line break in a value would
# start a line of its own (`certified=true`), so a value holding one is refused before
# anything runs. The report directory is the only input that reaches an output.
case $report_dir in
*$'\n'* | *$'\r'*)
    echo "certify.sh: the report directory holds a line break; refused (it would forge \$GITHUB_OUTPUT lines)" >&2
    exit 2
    ;;
esac

if [ -n "${SOULCHECK_BIN:-}" ]; then
    soulcheck=$SOULCHECK_BIN
else
    if ! command -v cargo >/dev/null; then
        echo "certify.sh: cargo is needed to build soulcheck (add a Rust toolchain step, or pass a prebuilt binary as SOULCHECK_BIN)" >&2
        exit 2
    fi
    echo "building soulcheck from $root" >&2
    cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml" -p soulcheck
    target_dir=${CARGO_TARGET_DIR:-$root/target}
    soulcheck="$target_dir/release/soulcheck"
fi
"$soulcheck" --version >&2

args=(run --quiet --validator "$SOULCHECK_COMMAND" --profile "${SOULCHECK_PROFILE:-spec}"
    --report "$report_dir")
IFS=', ' read -ra formats <<<"${SOULCHECK_FORMATS:-}"
for format in "${formats[@]}"; do
    if [ -n "$format" ]; then
        args+=(--format "$format")
    fi
done
if [ -n "${SOULCHECK_EXPECTATIONS:-}" ]; then
    args+=(--expectations "$SOULCHECK_EXPECTATIONS")
fi
if [ -n "${SOULCHECK_MAPPING:-}" ]; then
    args+=(--mapping "$SOULCHECK_MAPPING")
fi
if [ "${SOULCHECK_PERSISTENT:-false}" = true ]; then
    args+=(--persistent)
fi
if [ -n "${SOULCHECK_NAME:-}" ]; then
    args+=(--name "$SOULCHECK_NAME")
fi
if [ -n "${SOULCHECK_VERSION:-}" ]; then
    args+=(--impl-version "$SOULCHECK_VERSION")
fi
if [ -n "${SOULCHECK_EXTRA_ARGS:-}" ]; then
    # xargs splits words the way a shell quotes them, and runs nothing but printf.
    mapfile -d '' extra < <(printf '%s' "$SOULCHECK_EXTRA_ARGS" | xargs printf '%s\0')
    args+=("${extra[@]}")
fi

status=0
"$soulcheck" "${args[@]}" || status=$?

report="$report_dir/report.jsonl"
html="$report_dir/report.html"
# The page of this run only: after exit 2 the directory holds an earlier run's reports.
if [ "$status" -le 1 ] && [ -f "$report" ]; then
    "$soulcheck" report html "$html" "$report" >&2 || status=2
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    if [ -f "$report_dir/summary.md" ]; then
        cat "$report_dir/summary.md" >>"$GITHUB_STEP_SUMMARY"
        printf '\nThe HTML report (every case, its input and what the validator printed) is in the `report.html` artifact.\n' >>"$GITHUB_STEP_SUMMARY"
    else
        printf '## soulcheck\n\nThe run could not start (exit code %s); see the log.\n' "$status" >>"$GITHUB_STEP_SUMMARY"
    fi
fi

# Certified when this run finished (exit 0 or 1: it replaced the report directory as a
# whole, so the certificates in it are this run's; after exit 2 any there are an earlier
# run's), issued at least one certificate, and each says so. The directory is named
# literally (`find`, never a glob: `r[e]p` is a directory name, not a pattern), and counted,
# not piped into `grep -q`, which may end the pipe early and fail it under pipefail.
certified=false
if [ "$status" -le 1 ] && [ -d "$report_dir/certificates" ]; then
    issued=$(find "$report_dir/certificates" -maxdepth 1 -type f -name '*.json' | wc -l)
    granted=$(find "$report_dir/certificates" -maxdepth 1 -type f -name '*.json' \
        -exec grep -l '"certified": true' {} + | wc -l || true)
    if [ "$issued" -gt 0 ] && [ "$issued" -eq "$granted" ]; then
        certified=true
    fi
fi
# One output as a `name=value` line; a value with a line break is refused (checked for the
# report directory above, and again here for every value, so no later change can forge a
# line).
output() {
    case $2 in
    *$'\n'* | *$'\r'*)
        echo "certify.sh: the $1 output holds a line break; refused" >&2
        exit 2
        ;;
    esac
    printf '%s=%s\n' "$1" "$2"
}
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        output exit-code "$status"
        output certified "$certified"
        output report-dir "$report_dir"
        output report "$report"
        output html "$html"
        output junit "$report_dir/junit.xml"
        output summary "$report_dir/summary.md"
    } >>"$GITHUB_OUTPUT"
fi
echo "soulcheck: exit code $status, certified: $certified, reports in $report_dir" >&2

if [ "${SOULCHECK_DEFER_EXIT:-false}" = true ]; then
    exit 0
fi
exit "$status"
