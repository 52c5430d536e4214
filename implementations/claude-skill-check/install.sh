#!/usr/bin/env bash
# Installs claude-skill-check from PyPI into PREFIX: a virtual environment with every
# package pinned (requirements.txt, from `pip freeze` of a fresh install of
# claude-skill-check==0.1.0).
set -euo pipefail
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$prefix"
python3 -m venv "$prefix"
"$prefix/bin/python" -m pip install --quiet --disable-pip-version-check \
    --require-virtualenv -r "$here/requirements.txt"
