#!/usr/bin/env bash
# Run every check: ./test.sh [pytest options]
set -euo pipefail
cd "$(dirname "$0")"
. scripts/ensure-env.sh
.venv/bin/ruff check assistant tests bench
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
