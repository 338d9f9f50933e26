#!/usr/bin/env bash
# Run every check: ./test.sh [pytest options]
set -euo pipefail
cd "$(dirname "$0")"
# the phone keypad page is tested in a real browser (Debian's Chromium and its WebDriver);
# the service unit is checked with systemd-analyze (Debian: systemd), the arm64 check's scripts with shellcheck
# the int8 products on CPUs other than this one run under qemu-user (tests/test_whisper_decoder.py)
# the test tools and Whisper base are installed here, not by start.sh (a player's box needs neither)
EXTRA_APT_PACKAGES="chromium chromium-driver systemd shellcheck qemu-user" ASSISTANT_EXTRAS="test,whisper-base" . scripts/ensure-env.sh
.venv/bin/ruff check assistant tests bench
.venv/bin/mypy
# two processes (pytest-xdist): the real-audio tests mostly wait on sound played in real time, so
# the run takes about two thirds of one process's time; `./test.sh -n 0` runs in one process
.venv/bin/python -m pytest -q -n 2 "$@"
