#!/usr/bin/env bash
# Installs skill-check 1.2.0 from npm into PREFIX: `npm ci` of this folder's package-lock.json.
exec bash "$(dirname "$0")/../npm-ci.sh" "$(dirname "$0")" "$1"
