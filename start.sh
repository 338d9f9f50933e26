#!/usr/bin/env bash
# Set up (first run) and start the assistant: ./start.sh [game] [options]
# game: omega-virus (default), prologue, msx-cards, planets
set -euo pipefail
cd "$(dirname "$0")"
# what plays only (./test.sh adds the test tools and Whisper base)
ASSISTANT_EXTRAS="" . scripts/ensure-env.sh
stamp="${ASSISTANT_SETUP_STAMP:-.venv/.setup-done}"
if [ ! -f "$stamp" ]; then
    # Only the speech model here (without a network it says what is missing, and that still
    # counts as done). The game renders its voices itself, in the background, so it starts at once.
    if .venv/bin/assistant setup --skip-voices; then
        touch "$stamp"
    else
        echo "Set-up was incomplete (see above); starting anyway."
    fi
fi
exec .venv/bin/assistant play "${1:-omega-virus}" "${@:2}"
