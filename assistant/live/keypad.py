"""Private presses: a keypad read alongside the microphone, so secrets are never spoken.

Sources (``keypad.source`` in config.yaml):
- ``evdev``: any keyboard-like input device (a USB numeric keypad), chosen by a name
  substring; needs the ``evdev`` package and read access to /dev/input (the ``input`` group).
- ``terminal``: keys typed on the terminal the assistant runs in (a USB keypad plugged
  into the Pi types there too).
- ``fifo``: characters written into a named pipe (for GPIO buttons, a phone, or tests).
- ``none``: no private input; the Omega Virus fires random shots for attackers.
Each press becomes one of "0", "1", "2", "R" through the key map.
"""

from __future__ import annotations

import os
import queue
import select
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

#: evdev key names -> buttons (a numeric keypad, and the top-row digits).
DEFAULT_EVDEV_KEYS: dict[str, str] = {
    "KEY_KP0": "0", "KEY_KP1": "1", "KEY_KP2": "2", "KEY_KPDOT": "R", "KEY_KPENTER": "R",
    "KEY_0": "0", "KEY_1": "1", "KEY_2": "2", "KEY_R": "R",
}
#: characters -> buttons (terminal and fifo).
DEFAULT_CHAR_KEYS: dict[str, str] = {"0": "0", "1": "1", "2": "2", "r": "R", "R": "R", ".": "R", "*": "R"}


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


@dataclass
class EvdevKeypad:
    """Key presses from an input device whose name contains ``name``."""

    name: str
    keys: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_EVDEV_KEYS))
    device: Any = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @staticmethod
    def find(name: str) -> Any:
        try:
            import evdev  # type: ignore[import-not-found]
        except ImportError as error:
            raise KeypadError("The keypad needs the evdev package: .venv/bin/pip install evdev") from error
        paths = evdev.list_devices()
        if not paths:
            raise KeypadError("No input devices are readable. Plug in the keypad, and add yourself to the "
                              "input group: sudo usermod -aG input $USER (then log in again).")
        names = []
        for path in paths:
            device = evdev.InputDevice(path)
            names.append(device.name)
            if name.lower() in device.name.lower():
                return device
        raise KeypadError(f"No input device named like {name!r}. Found: {', '.join(names)}. "
                          "Set keypad.device in config.yaml to part of one of these names.")

    def start(self, on_press: Callable[[str], None]) -> None:
        if self.device is None:
            self.device = self.find(self.name)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(on_press,), name="keypad", daemon=True)
        self._thread.start()

    def _run(self, on_press: Callable[[str], None]) -> None:
        key_down = 1
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.device.fd], [], [], 0.1)
                if not ready:
                    continue
                for event in self.device.read():
                    if event.type == 1 and event.value == key_down:  # EV_KEY, pressed
                        name = self._key_name(event.code)
                        if name in self.keys:
                            on_press(self.keys[name])
            except OSError:
                return  # unplugged: the loop notices through alive()

    def _key_name(self, code: int) -> str:
        try:
            import evdev

            name = evdev.ecodes.KEY.get(code, "")
        except ImportError:
            name = ""
        return name[0] if isinstance(name, list) else str(name)

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
