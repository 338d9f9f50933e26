"""The journal: every accepted input, on disk before its answer is spoken.

One JSON object a line. The first line is the header (game, seed, settings); then
``{"cmd": {...}}`` for a command, ``{"advance": seconds}`` for game time that passed,
``{"undo": true}``, and ``{"end": reason}`` when the game is over. Replaying the header's
seed and settings with the entries rebuilds the identical game.

Storage never stops a game: when the journal cannot be written (read-only or missing
folder, full disk, no permission) the game goes on from memory, the players are told once
in plain words, and every later entry tries again to write all that is not yet on disk.
A line is only counted when it is whole (newline included), so a journal cut off anywhere
resumes from the last whole entry, and the next write replaces the torn tail.

Each game keeps one unfinished game. Once a journal's first move is on disk, the other
unfinished journals of its game are given up (deleted): never before, so a kill or a full disk
at any moment leaves one of them to resume; and never one another assistant is playing (each
holds a lock on the journal it plays, which goes with the process however it ends). A journal
removed under its game all the same is written again whole at its next entry.
"""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Reporter = Callable[[str], None]

RECOVERED = "Progress is being saved again."


def _print_notice(message: str) -> None:
    print(f"journal: {message}", file=sys.stderr, flush=True)


_listener: Reporter | None = None
_reported: str | None = None  # the storage problem the players were last told about


def report_to(listener: Reporter | None) -> None:
    """Also tell ``listener`` (e.g. the session's voice) about storage problems; a problem
    that is still on is told to it at once. Every notice is printed on stderr as well."""
    global _listener
    _listener = listener
    if listener is not None and _reported is not None:
        listener(_reported)


def _notice(message: str | None) -> None:
    """Tell the players once: a new problem, or that saving works again after one."""
    global _reported
    if message == _reported:
        return
    if message is None:
        _reported = None
        message = RECOVERED
    else:
        _reported = message
    _print_notice(message)
    if _listener is not None:
        _listener(message)


def why_not_saved(error: OSError, folder: Path) -> str:
    """Why nothing can be saved in ``folder`` (``error`` came from making or writing in it)."""
    return _why(error, folder)


def _why(error: OSError, folder: Path) -> str:
    code = error.errno
    if code == errno.EROFS:
        return f"the state folder {folder} is on a read-only disk"
    if code in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk that holds {folder} is full"
    if code == errno.EFBIG:
        return "the journal would be larger than this system allows (file-size limit)"
    if code in (errno.EACCES, errno.EPERM):
        return f"there is no permission to write in {folder}"
    if code in (errno.ENOENT, errno.ENOTDIR, errno.EEXIST):
        where = folder
        while not where.is_dir() and not where.exists() and where != where.parent:
            where = where.parent
        if where.exists() and not where.is_dir():
            return f"the state folder {folder} cannot be made: {where} is a file, not a folder"
        return (f"the state folder {folder} cannot be made: {where} takes no new folders "
                "(it is not a folder on a disk)")
    return f"{folder}: {error.strerror or error}"


def problem_notice(error: OSError, folder: Path) -> str:
    return (f"Progress is not being saved: {_why(error, folder)}. The game goes on; "
            "saving is tried again at every move. Set state_dir in config.yaml to a folder that can be written.")


@dataclass
class Journal:
    path: Path
    header: dict[str, Any]
    entries: list[dict[str, Any]]
    saved_lines: int = field(default=0, repr=False)   # lines on disk, header included
    saved_bytes: int = field(default=0, repr=False)   # their length in bytes
    trim: bool = field(default=False, repr=False)     # bytes after saved_bytes are torn
    problem: str | None = field(default=None, repr=False)
    #: Its game's other unfinished journals were given up (done once, after its first move).
    alone: bool = field(default=False, repr=False, compare=False)
    #: A descriptor holding a shared lock on the file while this process plays it (None: not held).
    _held: int | None = field(default=None, repr=False, compare=False)

    @classmethod
    def create(cls, folder: Path, game: str, seed: int, settings: dict[str, Any]) -> Journal:
        """A new journal, written at once if the disk lets it (see ``problem`` otherwise)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = folder / f"{game}-{stamp}-{seed}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{game}-{stamp}-{seed}-{n}.jsonl"
        header = {"journal": 1, "game": game, "seed": seed, "settings": settings,
                  "started": time.strftime("%Y-%m-%d %H:%M:%S")}
        journal = cls(path, header, [])
        journal.save()
        return journal

    @classmethod
    def read(cls, path: Path) -> Journal:
        """The journal at ``path``, up to its last whole, valid line (OSError if unreadable)."""
        data = path.read_bytes()
        items: list[dict[str, Any]] = []
        good = 0
        while True:
            end = data.find(b"\n", good)
            if end < 0:
                break  # no newline: a line torn by a power cut; everything before it stands
            item = _parse(data[good:end], header=not items)
            if item is None:
                break
            items.append(item)
            good = end + 1
        if not items:
            raise ValueError(f"{path}: not a journal (empty or cut off in its first line)")
        return cls(path, items[0], items[1:], saved_lines=len(items), saved_bytes=good,
                   trim=good < len(data))

    def append(self, entry: dict[str, Any]) -> None:
        """Write one entry durably (flushed and fsynced) before anything is said about it.

        Never raises for storage: the entry is kept in memory and written with the next one
        that can be."""
        self.entries.append(entry)
        self.save()

    def save(self) -> bool:
        """Write every line not yet on disk; True when the whole journal is there. Its first move
        on disk makes it its game's one unfinished game (``give_up_others``)."""
        creating = self.saved_lines == 0
        try:
            try:
                self._write(creating)
            except FileNotFoundError:
                if creating:
                    raise
                creating = True  # removed under the game (its folder too, maybe): written again whole
                self.saved_lines = self.saved_bytes = 0
                self.trim = False
                self._write(creating)
        except OSError as error:
            self._undo_partial_write(creating)
            self.problem = problem_notice(error, self.path.parent)
            _notice(self.problem)
            return False
        self.trim = False
        if self.problem is not None:
            self.problem = None
            _notice(None)
        if not self.alone and self.entries and not self.finished:
            self.alone = True
            give_up_others(self)
        return True

    def _write(self, creating: bool) -> None:
        """Write the lines not yet on disk, synced (OSError as the disk gives it)."""
        lines = [self.header, *self.entries]
        data = "".join(json.dumps(item) + "\n" for item in lines[self.saved_lines:]).encode("utf-8")
        if creating:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | (os.O_CREAT | os.O_TRUNC if creating else 0), 0o644)
        try:
            if creating:
                self._hold(lambda: os.dup(fd))  # before its first line: being made, it is never given up
            if self.trim:
                os.ftruncate(fd, self.saved_bytes)
            os.lseek(fd, self.saved_bytes, os.SEEK_SET)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if creating:
            _fsync_dir(self.path.parent)
        self.saved_lines = len(lines)
        self.saved_bytes += len(data)

    def hold(self) -> None:
        """Mark the journal as played by this process (a resumed one): another assistant starting
        a game of the same game gives it up only once this process has let go of it."""
        if self._held is None:
            self._hold(lambda: os.open(self.path, os.O_RDONLY))

    def _hold(self, opened: Callable[[], int]) -> None:
        """Hold the file through the descriptor ``opened`` gives (on a file system without locks,
        or with no descriptor to be had, nothing marks it: the game goes on all the same)."""
        self.release()
        try:
            fd = opened()
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
        except OSError:
            os.close(fd)
            return
        self._held = fd

    def release(self) -> None:
        """Let go of the journal (the game is closed): from now on a newer game may give it up."""
        if self._held is not None:
            os.close(self._held)
            self._held = None

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # noqa: BLE001 - at the interpreter's exit: the process lets go anyway
            pass

    def _undo_partial_write(self, creating: bool) -> None:
        """Leave no empty or torn file behind: what is on disk stays a whole journal."""
        self.trim = True
        try:
            if creating:
                self.release()
                self.path.unlink(missing_ok=True)
            else:
                os.truncate(self.path, self.saved_bytes)
                self.trim = False
        except OSError:
            pass

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


def _parse(line: bytes, header: bool) -> dict[str, Any] | None:
    """One journal line, or None if it is not one (torn, or not written by us)."""
    try:
        item = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(item, dict):
        return None
    if header:
        ok = isinstance(item.get("game"), str) and isinstance(item.get("seed"), int) \
            and isinstance(item.get("settings", {}), dict)
        return item if ok else None
    if "cmd" in item:
        return item if isinstance(item["cmd"], dict) and isinstance(item["cmd"].get("intent"), str) else None
    if "advance" in item:
        seconds = item["advance"]
        ok = isinstance(seconds, int | float) and not isinstance(seconds, bool) and math.isfinite(seconds) \
            and seconds >= 0
        return item if ok else None
    return item if "undo" in item or "end" in item else None


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


def unfinished_games(folder: Path, game: str) -> list[Journal]:
    """Every unfinished journal of ``game`` in ``folder``, the newest first.

    The newest is the game's unfinished game, the one offered. Older ones are left only where
    a newer one has not had a move saved since it was started or resumed (or by an older
    version, which kept every one): they are given up at its next move. Journals that cannot
    be read, or that hold nothing but their header (a start that never got going, e.g. with no
    speaker), are passed over."""
    try:
        found = [(path.stat().st_mtime, path) for path in folder.glob(f"{game}-*.jsonl")]
    except OSError:
        return []
    games: list[Journal] = []
    for _, path in sorted(found, reverse=True):
        try:
            journal = Journal.read(path)
        except (OSError, ValueError):
            continue
        if journal.header.get("game") == game and journal.entries and not journal.finished:
            games.append(journal)
    return games


def find_unfinished(folder: Path, game: str) -> Journal | None:
    """The newest unfinished journal of ``game`` in ``folder`` (see ``unfinished_games``)."""
    games = unfinished_games(folder, game)
    return games[0] if games else None


def give_up_others(journal: Journal) -> None:
    """Make ``journal`` (a move of it on disk) its game's one unfinished game: delete the other
    journals of its game in its folder that are not finished (those holding nothing but their
    header too), except those another process plays (see ``Journal.hold``)."""
    game = journal.header.get("game")
    folder = journal.path.parent
    try:
        paths = [path for path in folder.glob(f"{game}-*.jsonl") if path != journal.path]
    except OSError:
        return
    gone = False
    for path in paths:
        try:
            other = Journal.read(path)
        except (OSError, ValueError):
            continue  # not a journal (or one being written this instant): not ours to judge
        if other.header.get("game") == game and not other.finished:
            gone |= _delete_unless_held(path)
    if gone:
        _fsync_dir(folder)


def _delete_unless_held(path: Path) -> bool:
    """Delete ``path`` unless a process holds it; whether it was deleted."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held: played by another assistant
        if os.fstat(fd).st_ino != os.stat(path).st_ino:
            return False  # replaced meanwhile
        path.unlink()
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
