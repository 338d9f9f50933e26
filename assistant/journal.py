"""The journal: every accepted input, on disk before its answer is spoken.

One JSON object a line. The first line is the header (game, seed, settings); then
``{"cmd": {...}}`` for a command, ``{"advance": seconds}`` for game time that passed,
``{"undo": true}``, and ``{"end": reason}`` when the game is over. Replaying the header's
seed and settings with the entries rebuilds the identical game.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Journal:
    path: Path
    header: dict[str, Any]
    entries: list[dict[str, Any]]

    @classmethod
    def create(cls, folder: Path, game: str, seed: int, settings: dict[str, Any]) -> Journal:
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = folder / f"{game}-{stamp}-{seed}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{game}-{stamp}-{seed}-{n}.jsonl"
        header = {"journal": 1, "game": game, "seed": seed, "settings": settings,
                  "started": time.strftime("%Y-%m-%d %H:%M:%S")}
        journal = cls(path, header, [])
        with path.open("w", encoding="utf-8") as f:
            f.write(json.dumps(header) + "\n")
            f.flush()
            os.fsync(f.fileno())
        _fsync_dir(folder)
        return journal

    @classmethod
    def read(cls, path: Path) -> Journal:
        header: dict[str, Any] | None = None
        entries: list[dict[str, Any]] = []
        with path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    break  # a line torn by a power cut: everything before it stands
                if header is None:
                    header = item
                else:
                    entries.append(item)
        if header is None:
            raise ValueError(f"{path}: not a journal")
        return cls(path, header, entries)

    def append(self, entry: dict[str, Any]) -> None:
        """Write one entry durably (flushed and fsynced) before anything is said about it."""
        self.entries.append(entry)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())

    @property
    def finished(self) -> bool:
        """Ended, and not reopened since by an undo of the entry that ended it."""
        for entry in reversed(self.entries):
            if "end" in entry:
                return True
            if "undo" in entry:
                return False
        return False

    def game_seconds(self) -> float:
        return sum(float(e["advance"]) for e in self.entries if "advance" in e)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def find_unfinished(folder: Path, game: str) -> Journal | None:
    """The newest journal of ``game`` in ``folder`` that has no end entry."""
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob(f"{game}-*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            journal = Journal.read(path)
        except (OSError, ValueError):
            continue
        if journal.header.get("game") == game and not journal.finished:
            return journal
        return None
    return None
