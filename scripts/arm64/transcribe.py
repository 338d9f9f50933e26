"""`assistant transcribe --json CLIP` for each clip given, one after another in one process, each as
the command runs it (its own settings, recognizers and models, opened afresh): one JSON line a clip.

Why one process: under emulation (scripts/check-arm64.sh), CTranslate2's first Whisper encoding in
a process costs minutes (a one-time cost; the next ones take seconds), so a process a clip made the
check run past its time. Usage: .venv/bin/python scripts/arm64/transcribe.py CLIP [CLIP ...]"""

from __future__ import annotations

import sys

from assistant.cli import main


def transcribe_each(clips: list[str]) -> int:
    worst = 0
    for clip in clips:
        worst = max(worst, main(["transcribe", "--json", clip]))
        sys.stdout.flush()
    return worst


if __name__ == "__main__":
    raise SystemExit(transcribe_each(sys.argv[1:]))
