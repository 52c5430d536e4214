#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh outside Docker with the variables ClusterFuzzLite sets
# ($SRC, $OUT, $WORK, $SANITIZER, $FUZZING_ENGINE, $ARCHITECTURE), then checks that every
# target the fuzz crate lists is in $OUT with its dictionary, options and seed corpus, and
# runs each binary over a few of its seeds. Needs a nightly toolchain and cargo-fuzz (the
# fuzz smoke step installs it); skipped without nightly.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "clusterfuzzlite: no nightly toolchain; skipped"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out" "$work/work"
ln -s "$PWD" "$work/src/soulcheck"
export SRC="$work/src" OUT="$work/out" WORK="$work/work"
export SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64
export CARGO_FUZZ_TOOLCHAIN=nightly
.clusterfuzzlite/build.sh
targets=$(cd fuzz && cargo +nightly fuzz list)
for target in $targets; do
    for file in "$target" "$target.dict" "$target.options" "${target}_seed_corpus.zip"; do
        [ -s "$OUT/$file" ] || { echo "clusterfuzzlite: $OUT/$file is missing" >&2; exit 1; }
    done
    # A few seeds through the built binary: it starts, reads its options and inputs, and
    # exits cleanly.
    mkdir -p "$WORK/run/$target"
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[2]) for n in z.namelist()[:20]]' \
        "$OUT/${target}_seed_corpus.zip" "$WORK/run/$target"
    "$OUT/$target" -runs=0 -dict="$OUT/$target.dict" "$WORK/run/$target" >"$WORK/$target.log" 2>&1 \
        || { cat "$WORK/$target.log"; echo "clusterfuzzlite: $target failed on its seeds" >&2; exit 1; }
done
echo "clusterfuzzlite: $(echo "$targets" | wc -w) targets built and started"
