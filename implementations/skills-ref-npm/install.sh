#!/usr/bin/env bash
# Installs the pinned npm packages (package.json, package-lock.json) into PREFIX with
# `npm ci`, which installs exactly the lock file or fails.
set -euo pipefail
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$prefix"
mkdir -p "$prefix"
cp "$here/package.json" "$here/package-lock.json" "$prefix/"
cd "$prefix"
npm ci --silent --no-audit --no-fund
