"""The private keypad: presses from a named pipe (the same reader the terminal uses)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from assistant.live.keypad import CharKeypad, EvdevKeypad, KeypadError, PressQueue


def wait_for(presses: PressQueue, n: int) -> list[str]:
    got: list[str] = []
    deadline = time.monotonic() + 5
    while len(got) < n and time.monotonic() < deadline:
        got += presses.drain()
        time.sleep(0.01)
    return got


def test_fifo_keypad_maps_keys_and_ignores_others(tmp_path: Path) -> None:
    fifo = tmp_path / "keypad"
    presses = PressQueue()
    keypad = CharKeypad(fifo)
    keypad.start(presses)
    try:
        fd = os.open(fifo, os.O_WRONLY)
        os.write(fd, b"1x2\n.r0")
        os.close(fd)
        assert wait_for(presses, 5) == ["1", "2", "R", "R", "0"]
        fd = os.open(fifo, os.O_WRONLY)  # a second writer: the pipe stays open
        os.write(fd, b"*")
        os.close(fd)
        assert wait_for(presses, 1) == ["R"]
    finally:
        keypad.stop()


def test_evdev_keypad_says_what_to_do_when_it_cannot_open() -> None:
    try:
        EvdevKeypad.find("numeric keypad")
    except KeypadError as error:
        message = str(error)
        assert "pip install evdev" in message or "input group" in message or "No input device" in message
    else:  # pragma: no cover - only on a machine with such a device
        pass
