#!/usr/bin/env bash
# Installs skills-ref 0.1.5 from npm into PREFIX: `npm ci` of this folder's package-lock.json.
exec bash "$(dirname "$0")/../npm-ci.sh" "$(dirname "$0")" "$1"
