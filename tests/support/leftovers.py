"""The end-of-run check that the tests left the machine as they found it: pytest hooks a
conftest imports (``from tests.support.leftovers import pytest_sessionstart, ...``).

At the start of the run it notes every file and folder of the checkout (the pytest root
folder), ignored ones included, by size, modification time and mode, and the sound server's
default output and input when a server is running. At the end it fails the run (exit status
1, the differences listed under "leftovers") if a file or folder is new, changed or gone, or
if the defaults differ. Left out are only what the tools write that is not the product's:
``.git``, ``.venv``, ``__pycache__``, ``.pytest_cache``, ``.mypy_cache``, ``.ruff_cache`` and
``*.egg-info`` (see ``TOOL_FOLDERS``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

#: Folders the tools write (git, the venv, Python's bytecode, pytest's, mypy's and ruff's
#: caches, setuptools' metadata): not the product, so not watched.
TOOL_FOLDERS = frozenset({".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
TOOL_SUFFIXES = (".egg-info",)

#: path relative to the checkout -> (size, modification time in ns, mode); folders end in "/"
Snapshot = dict[str, tuple[int, int, int]]


def snapshot(root: Path) -> Snapshot:
    """Every file, link and folder under ``root`` but the tools' own folders."""
    found: Snapshot = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders
                               if name not in TOOL_FOLDERS and not name.endswith(TOOL_SUFFIXES))
        here = Path(folder)
        for name in subfolders:
            found[f"{(here / name).relative_to(root)}/"] = (0, 0, os.lstat(here / name).st_mode)
        for name in files:
            path = here / name
            try:
                status = os.lstat(path)
            except FileNotFoundError:
                continue  # gone while walking
            found[str(path.relative_to(root))] = (status.st_size, status.st_mtime_ns, status.st_mode)
    return found


def differences(before: Snapshot, after: Snapshot) -> list[str]:
    """What changed, one line each: "new: x", "changed: x", "gone: x"."""
    lines = [f"new: {path}" for path in sorted(after.keys() - before.keys())]
    lines += [f"changed: {path}" for path in sorted(before.keys() & after.keys())
              if before[path] != after[path] and not path.endswith("/")]
    lines += [f"gone: {path}" for path in sorted(before.keys() - after.keys())]
    return lines


def default_devices() -> tuple[str, str] | None:
    """The sound server's default sink and source, or None when no server answers."""
    if shutil.which("pactl") is None:
        return None
    try:
        done = subprocess.run(["pactl", "info"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    sink = re.search(r"^Default Sink: (.*)$", done.stdout, re.MULTILINE)
    source = re.search(r"^Default Source: (.*)$", done.stdout, re.MULTILINE)
    return (sink.group(1).strip() if sink else "", source.group(1).strip() if source else "")


@dataclass
class Before:
    files: Snapshot
    devices: tuple[str, str] | None


BEFORE = pytest.StashKey[Before]()
FOUND = pytest.StashKey[list[str]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[BEFORE] = Before(snapshot(session.config.rootpath), default_devices())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(BEFORE, None)
    if before is None:
        return
    audio = sys.modules.get("tests.audio_env")
    if audio is not None:
        audio.release()  # type: ignore[attr-defined]  # the test devices go before we compare
    found = [f"{line} (in {session.config.rootpath})"
             for line in differences(before.files, snapshot(session.config.rootpath))]
    if before.devices is not None:
        after = default_devices()
        if after is not None and after != before.devices:
            found.append(f"the sound server's default sink and source were {before.devices[0]!r} and "
                         f"{before.devices[1]!r}, and are now {after[0]!r} and {after[1]!r}")
    session.config.stash[FOUND] = found
    if found:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    audio = sys.modules.get("tests.audio_env")
    notice = getattr(audio, "NOTICE", None)
    if notice:
        terminalreporter.write_line(notice)
    found = terminalreporter.config.stash.get(FOUND, [])
    if found:
        terminalreporter.section("leftovers: the tests changed the machine", red=True)
        for line in found:
            terminalreporter.write_line(line, red=True)
