"""The keypads config.yaml asks for (``keypad.source``: one name or a list), with their keys.

Sources:
- ``evdev``: any keyboard-like input device (a USB numeric keypad), chosen by a name
  substring (``keypad.device``); needs read access to /dev/input (the ``input`` group).
- ``terminal``: keys typed on the terminal the assistant runs in (a USB keypad plugged
  into the Pi types there too).
- ``gpio``: push buttons (and a talk button) on a Raspberry Pi's GPIO pins
  (:mod:`assistant.live.gpio`, pins under ``keypad.gpio``).
- ``phone``: every player's phone, a page on the home network (:mod:`assistant.phone`).
- ``fifo``: characters written into a named pipe (for other hardware, or tests).
- ``none``: no private input; the Omega Virus fires random shots for attackers.
The readers themselves are in :mod:`assistant.live.keypad`; ``keypad.keys`` and
``keypad.talk_key`` map the terminal's, the pipe's and evdev's keys.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.config import Config
from assistant.live.gpio import open_gpio_keypad
from assistant.live.keypad import (
    DEFAULT_CHAR_KEYS,
    DEFAULT_CHAR_TALK_KEYS,
    DEFAULT_EVDEV_KEYS,
    DEFAULT_EVDEV_TALK_KEYS,
    KEY_CODES,
    CharKeypad,
    EvdevKeypad,
    Keypad,
    KeypadError,
    with_talk_keys,
)
from assistant.live.settings import KEYPAD_SOURCES as KEYPAD_SOURCES  # where it was
from assistant.live.settings import keypad_sources


@dataclass
class Keypads:
    """Several sources at once (``keypad.source: [gpio, phone]``): a press from any of them."""

    members: list[Keypad]

    def start(self, on_press: Callable[[str], None]) -> None:
        started: list[Keypad] = []
        try:
            for keypad in self.members:
                keypad.start(on_press)
                started.append(keypad)
        except BaseException:
            for keypad in started:
                keypad.stop()
            raise

    def stop(self) -> None:
        for keypad in self.members:
            keypad.stop()


def members(keypad: Keypad | None) -> list[Keypad]:
    """The single keypads inside ``keypad`` (itself, or a :class:`Keypads`' members)."""
    if keypad is None:
        return []
    return list(keypad.members) if isinstance(keypad, Keypads) else [keypad]


def working(keypad: Keypad | None, report: Callable[[str], object]) -> Keypad | None:
    """The keypads that can be read (each tried once: started and stopped); ``report`` hears why
    each other one cannot. None when none can."""
    kept: list[Keypad] = []
    for single in members(keypad):
        try:
            single.start(lambda button: None)
            single.stop()
        except (KeypadError, OSError) as error:
            report(str(error))
        else:
            kept.append(single)
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else Keypads(kept)


def open_keypad(config: Config) -> Keypad | None:
    """The keypad(s) ``keypad.source`` names (one name or a list), or None: none wanted, or
    their settings cannot be used (the reasons are in ``config.problems``). Opening a device
    itself happens at ``start()``, which raises :class:`KeypadError` with what to do."""
    sources = keypad_sources(config)
    if len(sources) == 1:
        return _open_source(config, sources[0])
    opened: list[Keypad] = []
    for name in sources:
        keypad = _open_source(config, name)
        if keypad is not None:
            opened.append(keypad)
    if not opened:
        return None
    return opened[0] if len(opened) == 1 else Keypads(opened)


def _open_source(config: Config, source: str) -> Keypad | None:
    if source == "none":
        return None
    if source == "gpio":
        return open_gpio_keypad(config)
    if source == "phone":
        from assistant.phone import PhoneKeypad  # here, when it is used: it brings aiohttp

        return PhoneKeypad.from_config(config)
    evdev = source == "evdev"
    buttons = keypad_keys(config, evdev) or dict(DEFAULT_EVDEV_KEYS if evdev else DEFAULT_CHAR_KEYS)
    keys = with_talk_keys(buttons, talk_keys(config, evdev, buttons))
    if evdev:
        return EvdevKeypad(config.value("keypad.device"), keys)
    if source == "fifo":
        return CharKeypad(Path(config.value("keypad.fifo")).expanduser(), keys)
    if not sys.stdin.isatty():
        return None
    return CharKeypad(None, keys)


def keypad_keys(config: Config, evdev: bool) -> dict[str, str]:
    """``keypad.keys`` (key -> button 0, 1, 2 or R); bad entries are reported and left out."""
    keys: dict[str, str] = {}
    mapping: dict[Any, Any] = config.value("keypad.keys")
    for raw_key, raw_button in mapping.items():
        key, button = str(raw_key), str(raw_button).upper()
        problem = _key_problem(key, evdev)
        if button not in ("0", "1", "2", "R"):
            config.problems.append(f"keypad.keys: {key}: {button!r} is not a button (0, 1, 2 or R); left out.")
        elif problem:
            config.problems.append(f"keypad.keys: {problem}; left out.")
        else:
            keys[key] = button
    return keys


def _key_problem(key: str, evdev: bool) -> str:
    """Why ``key`` cannot be read from this source ("" when it can)."""
    if evdev and key not in KEY_CODES:
        return f"{key!r} is not a key name this reader knows ({', '.join(sorted(KEY_CODES))})"
    if not evdev and len(key) != 1:
        return f"{key!r} must be one character for the terminal or a pipe"
    return ""


def talk_keys(config: Config, evdev: bool, buttons: dict[str, str]) -> tuple[str, ...]:
    """``keypad.talk_key``: the key (or list of keys) that opens the microphone in push-to-talk.

    A key the reader does not know, or one that already is a button, is reported and left
    out; with none left, the default ("+" and the space bar) is used.
    """
    default = DEFAULT_EVDEV_TALK_KEYS if evdev else DEFAULT_CHAR_TALK_KEYS
    raw = config.raw("keypad.talk_key", None)
    if raw is None:
        return default
    keys: list[str] = []
    where = f"{config.where('keypad.talk_key')}: keypad.talk_key"
    for entry in raw if isinstance(raw, list) else [raw]:
        key = str(entry)
        problem = _key_problem(key, evdev)
        if problem:
            config.problems.append(f"{where}: {problem}; left out.")
        elif key in buttons:
            config.problems.append(f"{where}: {key!r} is already the button {buttons[key]}; left out.")
        else:
            keys.append(key)
    if not keys:
        config.problems.append(f"{where}: no usable talk key; using {' and '.join(map(repr, default))}.")
        return tuple(k for k in default if k not in buttons)
    return tuple(keys)
