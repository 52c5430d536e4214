#!/usr/bin/env bash
# Installs skills-ref from PyPI into PREFIX: a virtual environment with every package pinned
# (requirements.txt, from `pip freeze` of a fresh install of skills-ref==0.1.1).
exec bash "$(dirname "$0")/../pip-venv.sh" "$(dirname "$0")" "$1"
