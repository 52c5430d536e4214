#!/usr/bin/env bash
# The install of every npm folder: FOLDER's pinned packages (package.json and its
# package-lock.json) into PREFIX with `npm ci`, which installs exactly the lock file or
# fails. Usage: npm-ci.sh FOLDER PREFIX (a folder's install.sh calls it).
set -euo pipefail
here=$(cd "$1" && pwd)
prefix=$2
rm -rf "$prefix"
mkdir -p "$prefix"
cp "$here/package.json" "$here/package-lock.json" "$prefix/"
cd "$prefix"
npm ci --silent --no-audit --no-fund
