#!/usr/bin/env bash
# Installs check-jsonschema from PyPI into PREFIX: a virtual environment with every package
# pinned (requirements.txt: check-jsonschema==0.39.0 and orjson==3.8.3, which it reads JSON
# with when installed; the expectations assume orjson).
exec bash "$(dirname "$0")/../pip-venv.sh" "$(dirname "$0")" "$1"
