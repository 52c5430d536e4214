#!/usr/bin/env bash
# Installs check-jsonschema from PyPI into PREFIX: a virtual environment with every package
# pinned (requirements.txt: check-jsonschema==0.39.0 and orjson==3.8.3, which it reads JSON
# with when installed; the expectations assume orjson).
set -euo pipefail
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$prefix"
python3 -m venv "$prefix"
"$prefix/bin/python" -m pip install --quiet --disable-pip-version-check \
    --require-virtualenv -r "$here/requirements.txt"
