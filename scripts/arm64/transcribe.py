"""`assistant transcribe --json CLIP` for each clip given, in one process and with one ear: a JSON
line a clip, made by the command's own code (assistant.cli.main), except that the ear (the
recognizers and their models) is opened once and hears every clip, as it hears every utterance
in a game.

Why: under emulation (scripts/check-arm64.sh), the first Whisper encoding of a freshly loaded model
costs minutes (the next encodings with that model take seconds), so a process, or an ear, a clip
made the check run past its time.
Usage: .venv/bin/python scripts/arm64/transcribe.py CLIP [CLIP ...]"""

from __future__ import annotations

import sys
from typing import Any

import assistant.hearing.commands as commands
from assistant.cli import main

_opened: list[Any] = []
_open_ear = commands.open_ear


def _open_once(*args: Any, **kwargs: Any) -> Any:
    """The first ear the command opens, for every clip (all are heard with the same settings and game)."""
    if not _opened:
        _opened.append(_open_ear(*args, **kwargs))
    return _opened[0]


def transcribe_each(clips: list[str]) -> int:
    commands.open_ear = _open_once
    worst = 0
    for clip in clips:
        worst = max(worst, main(["transcribe", "--json", clip]))
        sys.stdout.flush()
    return worst


if __name__ == "__main__":
    raise SystemExit(transcribe_each(sys.argv[1:]))
