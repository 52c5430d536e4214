#!/bin/bash -eu
# Builds every cargo-fuzz target of soulcheck into $OUT, each with its dictionary, an
# options file and a seed corpus, as ClusterFuzzLite and OSS-Fuzz expect. It runs inside
# the Docker image of this folder, where $SRC, $OUT, $WORK and $SANITIZER are set and the
# default toolchain is nightly; CI also runs it outside Docker with the same variables
# (.ci/clusterfuzzlite.sh) to prove every target builds.
#
# Optional: CARGO_FUZZ_TOOLCHAIN=nightly selects a rustup toolchain (outside the image),
# SOULCHECK_FUZZ_TARGET_DIR keeps the build elsewhere (default: fuzz/target).

project="$SRC/soulcheck"
toolchain=()
if [ -n "${CARGO_FUZZ_TOOLCHAIN:-}" ]; then
    toolchain=("+$CARGO_FUZZ_TOOLCHAIN")
fi
target_dir="${SOULCHECK_FUZZ_TARGET_DIR:-$project/fuzz/target}"
case "${SANITIZER:-address}" in
    address) sanitizer=address ;;
    none) sanitizer=none ;;
    *) echo "build.sh: sanitizer $SANITIZER is not supported for Rust; use address" >&2; exit 1 ;;
esac

cd "$project/fuzz"
cargo "${toolchain[@]}" fuzz build -O --debug-assertions --sanitizer "$sanitizer" --target-dir "$target_dir"
targets=$(cargo "${toolchain[@]}" fuzz list)

# Seeds: the curated ones committed under fuzz/seeds/ plus every corpus input of the
# target's format, written by the stable-side tool (built without the sanitizer flags
# the image exports for C code).
seeds="$WORK/soulcheck-seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
(cd "$project" && env -u RUSTFLAGS -u CFLAGS -u CXXFLAGS \
    cargo "${toolchain[@]}" run -q --release -p soulcheck-fuzz-tool --bin soulcheck-fuzz -- seed "$seeds")

binaries="$target_dir/x86_64-unknown-linux-gnu/release"
for target in $targets; do
    cp "$binaries/$target" "$OUT/$target"
    cp "dict/$target.dict" "$OUT/$target.dict"
    printf '[libfuzzer]\ndict = %s.dict\nmax_len = 65536\ntimeout = 30\nrss_limit_mb = 4096\n' \
        "$target" > "$OUT/$target.options"
    mkdir -p "$seeds/$target"
    if [ -d "seeds/$target" ]; then
        cp seeds/"$target"/* "$seeds/$target/"
    fi
    (cd "$seeds/$target" && python3 - "$OUT/${target}_seed_corpus.zip" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as archive:
    for name in sorted(os.listdir(".")):
        archive.write(name)
PY
    )
done
echo "build.sh: $(echo "$targets" | wc -w) targets in $OUT"
