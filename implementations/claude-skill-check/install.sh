#!/usr/bin/env bash
# Installs claude-skill-check from PyPI into PREFIX: a virtual environment with every
# package pinned (requirements.txt, from `pip freeze` of a fresh install of
# claude-skill-check==0.1.0).
exec bash "$(dirname "$0")/../pip-venv.sh" "$(dirname "$0")" "$1"
