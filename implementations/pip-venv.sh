#!/usr/bin/env bash
# The install of every PyPI folder: a virtual environment in PREFIX with every package of
# FOLDER/requirements.txt (pinned, from `pip freeze` of a fresh install). Usage:
# pip-venv.sh FOLDER PREFIX (a folder's install.sh calls it).
set -euo pipefail
here=$(cd "$1" && pwd)
prefix=$2
rm -rf "$prefix"
python3 -m venv "$prefix"
"$prefix/bin/python" -m pip install --quiet --disable-pip-version-check \
    --require-virtualenv -r "$here/requirements.txt"
