"""Private presses: a keypad read alongside the microphone, so secrets are never spoken.

The readers: :class:`CharKeypad` (the terminal, or a named pipe) and :class:`EvdevKeypad` (a
Linux input device such as a USB numeric keypad); :mod:`assistant.live.gpio` and
:mod:`assistant.phone` have two more. Each press becomes one of "0", "1", "2", "R" through
the key map, or ``TALK`` for a talk key (push-to-talk: the live loop opens the microphone
for one utterance; never a game button). Which of them config.yaml asks for is
:mod:`assistant.live.keypads`.
"""

from __future__ import annotations

import fcntl
import os
import queue
import select
import struct
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

#: evdev key names -> buttons (a numeric keypad, and the top-row digits).
DEFAULT_EVDEV_KEYS: dict[str, str] = {
    "KEY_KP0": "0", "KEY_KP1": "1", "KEY_KP2": "2", "KEY_KPDOT": "R", "KEY_KPENTER": "R", "KEY_KPASTERISK": "R",
    "KEY_0": "0", "KEY_1": "1", "KEY_2": "2", "KEY_R": "R",
}
#: characters -> buttons (terminal and fifo).
DEFAULT_CHAR_KEYS: dict[str, str] = {"0": "0", "1": "1", "2": "2", "r": "R", "R": "R", ".": "R", "*": "R"}
#: What a talk key delivers: not a game button, the live loop's "let me speak".
TALK = "TALK"
#: Talk keys unless ``keypad.talk_key`` says otherwise: "+" on a numeric keypad, and the space bar.
DEFAULT_CHAR_TALK_KEYS: tuple[str, ...] = ("+", " ")
DEFAULT_EVDEV_TALK_KEYS: tuple[str, ...] = ("KEY_KPPLUS", "KEY_SPACE")


def with_talk_keys(keys: Mapping[str, str], talk_keys: Iterable[str]) -> dict[str, str]:
    """The key map ``keys`` with each of ``talk_keys`` delivering :data:`TALK` (a key that is
    already a button stays that button)."""
    mapped = dict(keys)
    for key in talk_keys:
        mapped.setdefault(key, TALK)
    return mapped


class KeypadError(RuntimeError):
    """The keypad cannot be opened; the message says what to do."""


class Keypad(Protocol):
    def start(self, on_press: Callable[[str], None]) -> None: ...

    def stop(self) -> None: ...


@dataclass
class CharKeypad:
    """Presses from a stream of characters: a terminal in raw mode, or a named pipe."""

    path: Path | None = None            # a FIFO; None = the terminal on stdin
    keys: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_CHAR_KEYS))
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _fd: int | None = None
    _saved_tty: Any = None

    def start(self, on_press: Callable[[str], None]) -> None:
        if self.path is not None:
            if not self.path.exists():
                os.mkfifo(self.path)
            # O_RDWR keeps the pipe open when writers come and go.
            self._fd = os.open(self.path, os.O_RDWR | os.O_NONBLOCK)
        else:
            import termios
            import tty

            self._fd = os.dup(0)
            if os.isatty(self._fd):
                self._saved_tty = termios.tcgetattr(self._fd)
                tty.setcbreak(self._fd)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(on_press,), name="keypad", daemon=True)
        self._thread.start()

    def _run(self, on_press: Callable[[str], None]) -> None:
        assert self._fd is not None
        while not self._stop.is_set():
            ready, _, _ = select.select([self._fd], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self._fd, 64)
            except BlockingIOError:
                continue
            except OSError:
                return
            for ch in data.decode("utf-8", "ignore"):
                button = self.keys.get(ch)
                if button is not None:
                    on_press(button)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        if self._fd is not None:
            if self._saved_tty is not None:
                import termios

                termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved_tty)
            os.close(self._fd)
            self._fd = None


#: Linux key codes (linux/input-event-codes.h) of the keys a keypad may map, by name.
KEY_CODES: dict[str, int] = {
    **{f"KEY_{d}": 1 + d for d in range(1, 10)}, "KEY_0": 11, "KEY_BACKSPACE": 14, "KEY_R": 19, "KEY_ENTER": 28,
    "KEY_SPACE": 57, "KEY_KPASTERISK": 55, "KEY_NUMLOCK": 69, "KEY_KP7": 71, "KEY_KP8": 72, "KEY_KP9": 73,
    "KEY_KPMINUS": 74, "KEY_KP4": 75, "KEY_KP5": 76, "KEY_KP6": 77, "KEY_KPPLUS": 78, "KEY_KP1": 79,
    "KEY_KP2": 80, "KEY_KP3": 81, "KEY_KP0": 82, "KEY_KPDOT": 83, "KEY_KPENTER": 96, "KEY_KPSLASH": 98,
}
#: struct input_event: a timeval (two longs), type, code, value; native sizes (24 bytes on 64-bit).
INPUT_EVENT = struct.Struct("llHHi")
EV_KEY, KEY_DOWN = 1, 1
#: ioctl EVIOCGRAB: while we hold the device, its keys type nowhere else (secrets stay off screens).
EVIOCGRAB = 0x40044590


@dataclass
class EvdevKeypad:
    """Key presses from a Linux input device (a USB numeric keypad, ...) whose name contains
    ``name``, read straight from /dev/input (no extra package); ``keys`` maps key names to
    buttons. The device is grabbed while read, so its keys do not also type into a console."""

    name: str
    keys: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_EVDEV_KEYS))
    sys_root: Path = Path("/sys/class/input")
    dev_root: Path = Path("/dev/input")
    device: Path | None = None
    device_name: str = ""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def devices(self) -> list[tuple[Path, str]]:
        """(device node, name) of every input event device."""
        found = []
        for entry in sorted(self.sys_root.glob("event*"), key=lambda p: int(p.name[5:] or 0)):
            try:
                name = (entry / "device" / "name").read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                continue
            found.append((self.dev_root / entry.name, name))
        return found

    def find(self) -> tuple[Path, str]:
        devices = self.devices()
        if not devices:
            raise KeypadError("No input devices found. Plug in the keypad (any USB keyboard or numeric keypad).")
        for path, name in devices:
            if self.name.lower() in name.lower():
                if not os.access(path, os.R_OK):
                    raise KeypadError(f"The keypad {name!r} ({path}) is not readable. Add yourself to the input "
                                      "group: sudo usermod -aG input $USER (then log in again).")
                return path, name
        raise KeypadError(f"No input device named like {self.name!r}. Found: "
                          f"{', '.join(n for _, n in devices)}. Set keypad.device in config.yaml to part of one "
                          "of these names.")

    def start(self, on_press: Callable[[str], None]) -> None:
        if self.device is None:
            self.device, self.device_name = self.find()
        try:
            fd = os.open(self.device, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as error:
            raise KeypadError(f"The keypad {self.device_name or self.device} will not open ({error.strerror}). "
                              "Add yourself to the input group: sudo usermod -aG input $USER") from error
        try:
            fcntl.ioctl(fd, EVIOCGRAB, 1)
        except OSError:
            pass  # not an input device (a test's pipe), or grabbed already: read it anyway
        codes = {KEY_CODES[k]: button for k, button in self.keys.items() if k in KEY_CODES}
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(fd, codes, on_press), name="keypad", daemon=True)
        self._thread.start()

    def _run(self, fd: int, codes: Mapping[int, str], on_press: Callable[[str], None]) -> None:
        pending = b""
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([fd], [], [], 0.1)
                if not ready:
                    continue
                try:
                    data = os.read(fd, INPUT_EVENT.size * 64)
                except BlockingIOError:
                    continue
                if not data:  # a pipe with no writer (tests); a real device never ends this way
                    time.sleep(0.05)
                    continue
                pending += data
                whole = len(pending) // INPUT_EVENT.size * INPUT_EVENT.size
                for _, _, kind, code, value in INPUT_EVENT.iter_unpack(pending[:whole]):
                    if kind == EV_KEY and value == KEY_DOWN and code in codes:
                        on_press(codes[code])
                pending = pending[whole:]
        except OSError:
            return  # unplugged: the loop notices through alive()
        finally:
            os.close(fd)

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)


class PressQueue:
    """Collects presses from a keypad thread for the main loop."""

    def __init__(self) -> None:
        self.queue: queue.Queue[str] = queue.Queue()

    def __call__(self, button: str) -> None:
        self.queue.put(button)

    def drain(self) -> list[str]:
        presses = []
        while True:
            try:
                presses.append(self.queue.get_nowait())
            except queue.Empty:
                return presses
