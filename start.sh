#!/usr/bin/env bash
# Set up (first run) and start the assistant: ./start.sh [game] [options]
# game: omega-virus (default), prologue, msx-cards, planets
set -euo pipefail
cd "$(dirname "$0")"
. scripts/ensure-env.sh
if [ ! -f .venv/.setup-done ]; then
    .venv/bin/assistant setup && touch .venv/.setup-done || echo "Set-up was incomplete; starting anyway."
fi
exec .venv/bin/assistant play "${1:-omega-virus}" "${@:2}"
