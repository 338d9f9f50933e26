"""The end-of-run check that the tests left the machine as they found it: pytest hooks a
conftest imports (``from tests.support.leftovers import pytest_sessionstart, ...``).

At the start of the run it notes every file and folder of the checkout (the pytest root
folder), ignored ones included, by size, modification time and mode; the same of the folders
in the user's home the tests are known to reach (``HOME_PATHS``: PulseAudio's client and
server files, the assistant's own config and state, the user's systemd units); and the sound
server's default output and input when a server is running. At the end it fails the run (exit
status 1, the differences listed under "leftovers") if a file or folder is new, changed or
gone, or if the defaults differ. Left out are only what the tools write that is not the
product's: ``.git``, ``.venv``, ``__pycache__``, ``.pytest_cache``, ``.mypy_cache``,
``.ruff_cache`` and ``*.egg-info`` (see ``TOOL_FOLDERS``); and, when a sound server was running
before the run (a desktop's), the files that server keeps in ~/.config/pulse for every
program that plays (``SERVER_STATE``: its remembered defaults and volumes).
"""

from __future__ import annotations

import os
import re
import shutil
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

#: Folders in the home folder that the tests are known to reach (each is small, or absent):
#: PulseAudio's (its clients' cookie and ``<machine-id>-runtime`` link, a server's cookie), the
#: assistant's config and its per-install state, the user's systemd units (the service tests).
HOME_PATHS = (".config/pulse", ".config/omega-assistant", ".local/state/omega-assistant", ".config/systemd/user",
              ".cache/Microsoft")  # onnxruntime's telemetry device id (assistant/__init__.py turns it off)
#: What a running PulseAudio keeps in ~/.config/pulse for all its clients: not watched when one
#: was running before the run (``<machine-id>-default-sink``, ``-default-source``, its ``.tdb``
#: databases of volumes and devices).
SERVER_STATE = re.compile(r"-default-(?:sink|source)$|\.tdb$")


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


def home_snapshot(home: Path, server_running: bool) -> Snapshot:
    """``HOME_PATHS`` under ``home``, keyed "~/path/..." (a folder itself too, so that one made
    empty counts); a running server's own files in .config/pulse left out."""
    found: Snapshot = {}
    for relative in HOME_PATHS:
        folder = home / relative
        if not folder.is_dir():
            continue
        found[f"~/{relative}/"] = (0, 0, os.lstat(folder).st_mode)
        for path, status in snapshot(folder).items():
            if not (server_running and relative == ".config/pulse" and SERVER_STATE.search(path.rstrip("/"))):
                found[f"~/{relative}/{path}"] = status
    return found


def differences(before: Snapshot, after: Snapshot) -> list[str]:
    """What changed, one line each: "new: x", "changed: x", "gone: x"."""
    lines = [f"new: {path}" for path in sorted(after.keys() - before.keys())]
    lines += [f"changed: {path}" for path in sorted(before.keys() & after.keys())
              if before[path] != after[path] and not path.endswith("/")]
    lines += [f"gone: {path}" for path in sorted(before.keys() - after.keys())]
    return lines


def default_devices(server: str | None = None) -> tuple[str, str] | None:
    """The default sink and source of the sound server at ``server`` (else the one that is
    running), or None when no server answers. The server is looked for by its socket, and pactl
    given a cookie of the tests' (tests/audio_env.py), so that asking writes nothing into
    ~/.config/pulse."""
    if shutil.which("pactl") is None:
        return None
    from tests.audio_env import default_devices_in, find_server, server_info

    server = server or find_server()
    info = server_info(server) if server is not None else None
    return default_devices_in(info) if info is not None else None


@dataclass
class Before:
    files: Snapshot
    home: Snapshot
    devices: tuple[str, str] | None


BEFORE = pytest.StashKey[Before]()
FOUND = pytest.StashKey[list[str]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Notes the machine's state. In a run split over processes (pytest-xdist, ``-n``) the main
    process notes it and checks it at the end, and starts the sound server before the workers
    start, so that they all use one server and none stops it under another; a worker only
    points its clients at it."""
    from tests.audio_env import AudioEnvError, ensure_audio, prepare

    server = prepare()  # before the snapshot: from now on no client looks for a server in ~/.config/pulse
    if hasattr(session.config, "workerinput"):
        return
    devices = default_devices(server)
    session.config.stash[BEFORE] = Before(snapshot(session.config.rootpath),
                                          home_snapshot(Path.home(), devices is not None), devices)
    if session.config.pluginmanager.hasplugin("dsession"):
        try:
            ensure_audio()
        except AudioEnvError:
            pass  # the tests that need it say why


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(BEFORE, None)
    audio = sys.modules.get("tests.audio_env")
    if audio is not None:  # the test devices go, and a server the tests started, before we compare
        audio.release()  # type: ignore[attr-defined]
        audio.stop_started_audio()  # type: ignore[attr-defined]
    if before is None:  # a worker of a split run: the main process compares
        return
    found = [f"{line} (in {session.config.rootpath})"
             for line in differences(before.files, snapshot(session.config.rootpath))]
    found += [f"{line} (in the home folder, {Path.home()})"
              for line in differences(before.home, home_snapshot(Path.home(), before.devices is not None))]
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
