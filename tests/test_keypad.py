"""The private keypad: presses from a named pipe (the same reader the terminal uses)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from assistant.live.keypad import (
    DEFAULT_CHAR_KEYS,
    DEFAULT_CHAR_TALK_KEYS,
    DEFAULT_EVDEV_KEYS,
    DEFAULT_EVDEV_TALK_KEYS,
    EV_KEY,
    INPUT_EVENT,
    KEY_CODES,
    TALK,
    CharKeypad,
    EvdevKeypad,
    KeypadError,
    PressQueue,
    with_talk_keys,
)


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


def fake_input(tmp_path: Path, devices: dict[str, str]) -> tuple[Path, Path]:
    """A /sys/class/input and /dev/input of our own: event nodes are named pipes."""
    sys_root, dev_root = tmp_path / "sys", tmp_path / "dev"
    dev_root.mkdir()
    for node, name in devices.items():
        (sys_root / node / "device").mkdir(parents=True)
        (sys_root / node / "device" / "name").write_text(name + "\n")
        os.mkfifo(dev_root / node)
    return sys_root, dev_root


def event(kind: int, code: int, value: int) -> bytes:
    return INPUT_EVENT.pack(1_700_000_000, 0, kind, code, value)


def test_evdev_keypad_reads_key_presses_from_the_named_device(tmp_path: Path) -> None:
    sys_root, dev_root = fake_input(tmp_path, {"event0": "AT Translated Set 2 keyboard",
                                               "event4": "SEM USB Numeric Keypad"})
    keypad = EvdevKeypad("numeric", sys_root=sys_root, dev_root=dev_root)
    assert keypad.find() == (dev_root / "event4", "SEM USB Numeric Keypad")
    presses = PressQueue()
    keypad.start(presses)
    try:
        fd = os.open(dev_root / "event4", os.O_WRONLY)
        kp1, kp2, kpdot, kp0, a_key = KEY_CODES["KEY_KP1"], KEY_CODES["KEY_KP2"], KEY_CODES["KEY_KPDOT"], \
            KEY_CODES["KEY_KP0"], 30
        stream = b"".join([
            event(4, 4, 458841), event(EV_KEY, kp1, 1), event(0, 0, 0),   # scan code, press, sync
            event(EV_KEY, kp1, 2), event(EV_KEY, kp1, 0),                  # auto-repeat and release: no press
            event(EV_KEY, a_key, 1),                                       # a key that is no button
            event(EV_KEY, kp2, 1), event(EV_KEY, kpdot, 1), event(EV_KEY, kp0, 1)])
        os.write(fd, stream[:37])  # events may arrive cut anywhere
        time.sleep(0.1)
        os.write(fd, stream[37:])
        os.close(fd)
        assert wait_for(presses, 4) == ["1", "2", "R", "0"]
    finally:
        keypad.stop()


def test_evdev_keys_can_be_mapped(tmp_path: Path) -> None:
    sys_root, dev_root = fake_input(tmp_path, {"event2": "Keypad"})
    keypad = EvdevKeypad("keypad", {"KEY_KP7": "0", "KEY_KPENTER": "R"}, sys_root=sys_root, dev_root=dev_root)
    presses = PressQueue()
    keypad.start(presses)
    try:
        fd = os.open(dev_root / "event2", os.O_WRONLY)
        os.write(fd, event(EV_KEY, KEY_CODES["KEY_KP0"], 1) + event(EV_KEY, KEY_CODES["KEY_KP7"], 1)
                 + event(EV_KEY, KEY_CODES["KEY_KPENTER"], 1))
        os.close(fd)
        assert wait_for(presses, 2) == ["0", "R"]
    finally:
        keypad.stop()


def test_evdev_keypad_says_what_to_do_when_it_cannot_open(tmp_path: Path) -> None:
    sys_root, dev_root = fake_input(tmp_path, {"event0": "Power Button", "event1": "USB Keyboard"})
    with pytest.raises(KeypadError, match="No input device named like 'numeric'. Found: Power Button, "
                                          "USB Keyboard. Set keypad.device"):
        EvdevKeypad("numeric", sys_root=sys_root, dev_root=dev_root).find()
    with pytest.raises(KeypadError, match="No input devices found"):
        EvdevKeypad("numeric", sys_root=tmp_path / "none", dev_root=dev_root).find()


def test_keypad_keys_from_config_are_checked() -> None:
    from assistant.config import Config
    from assistant.live.keypads import keypad_keys

    config = Config.from_text("keypad:\n  keys: {KEY_KP7: 0, KEY_NOPE: 1, KEY_KP8: 5, KEY_KPENTER: r}\n")
    assert keypad_keys(config, evdev=True) == {"KEY_KP7": "0", "KEY_KPENTER": "R"}
    assert len(config.problems) == 2 and "KEY_NOPE" in config.problems[0] and "'5'" in config.problems[1]
    config = Config.from_text("keypad:\n  keys: {'+': R, ab: 1}\n")
    assert keypad_keys(config, evdev=False) == {"+": "R"}
    assert "must be one character" in config.problems[0]


def test_a_talk_key_delivers_talk_through_the_same_callback(tmp_path: Path) -> None:
    fifo = tmp_path / "keypad"
    presses = PressQueue()
    keypad = CharKeypad(fifo, with_talk_keys(DEFAULT_CHAR_KEYS, DEFAULT_CHAR_TALK_KEYS))
    keypad.start(presses)
    try:
        fd = os.open(fifo, os.O_WRONLY)
        os.write(fd, b"+1 2")
        os.close(fd)
        assert wait_for(presses, 4) == [TALK, "1", TALK, "2"]
    finally:
        keypad.stop()


def test_evdev_talk_key(tmp_path: Path) -> None:
    sys_root, dev_root = fake_input(tmp_path, {"event3": "Numeric Keypad"})
    keypad = EvdevKeypad("keypad", with_talk_keys(DEFAULT_EVDEV_KEYS, DEFAULT_EVDEV_TALK_KEYS),
                         sys_root=sys_root, dev_root=dev_root)
    presses = PressQueue()
    keypad.start(presses)
    try:
        fd = os.open(dev_root / "event3", os.O_WRONLY)
        os.write(fd, event(EV_KEY, KEY_CODES["KEY_KPPLUS"], 1) + event(EV_KEY, KEY_CODES["KEY_KP2"], 1))
        os.close(fd)
        assert wait_for(presses, 2) == [TALK, "2"]
    finally:
        keypad.stop()


def test_talk_keys_from_config_are_checked() -> None:
    from assistant.config import Config
    from assistant.live.keypads import talk_keys

    buttons = dict(DEFAULT_CHAR_KEYS)
    config = Config.from_text("")
    assert talk_keys(config, False, buttons) == DEFAULT_CHAR_TALK_KEYS
    assert talk_keys(config, True, dict(DEFAULT_EVDEV_KEYS)) == DEFAULT_EVDEV_TALK_KEYS
    config = Config.from_text("keypad:\n  talk_key: t\n")
    assert talk_keys(config, False, buttons) == ("t",) and config.problems == []
    config = Config.from_text("keypad:\n  talk_key: [KEY_F1, KEY_SPACE, KEY_KP1]\n")
    assert talk_keys(config, True, dict(DEFAULT_EVDEV_KEYS)) == ("KEY_SPACE",)
    assert len(config.problems) == 2
    assert config.problems[0].startswith("config line 2: keypad.talk_key: 'KEY_F1' is not a key name")
    assert "'KEY_KP1' is already the button 1; left out." in config.problems[1]
    config = Config.from_text("keypad:\n  talk_key: [tt, 1]\n")
    assert talk_keys(config, False, buttons) == DEFAULT_CHAR_TALK_KEYS
    assert "'tt' must be one character" in config.problems[0]
    assert "'1' is already the button 1" in config.problems[1]
    assert config.problems[2] == "config line 2: keypad.talk_key: no usable talk key; using '+' and ' '."


def test_the_fifo_keypad_from_config_has_the_talk_key(tmp_path: Path) -> None:
    from assistant.config import Config
    from assistant.live.keypads import open_keypad

    config = Config.from_text(f"keypad:\n  source: fifo\n  fifo: {tmp_path / 'keys'}\n  talk_key: t\n"
                              "  keys: {'+': R}\n")
    keypad = open_keypad(config)
    assert isinstance(keypad, CharKeypad)
    assert keypad.keys == {"+": "R", "t": TALK}
    assert config.problems == []


def test_keypad_sources_include_gpio_and_a_wrong_one_is_named() -> None:
    from assistant.config import Config
    from assistant.live.keypads import KEYPAD_SOURCES, open_keypad

    assert KEYPAD_SOURCES == ("none", "terminal", "fifo", "evdev", "gpio", "phone")
    config = Config.from_text("keypad:\n  source: buttons\n")
    open_keypad(config)
    assert config.problems == ["config line 2: keypad.source = 'buttons' must be one of none, terminal, fifo, "
                               "evdev, gpio, phone; using 'terminal'."]


def test_several_sources_at_once_and_the_ones_that_cannot_be_read_are_left_out(tmp_path: Path) -> None:
    """keypad.source: [fifo, phone, evdev]: a press from either works; an evdev keypad that is
    not plugged in is reported and left out, the others go on."""
    from assistant.config import Config
    from assistant.live.keypads import Keypads, members, open_keypad, working
    from assistant.phone import PhoneKeypad

    fifo = tmp_path / "keys"
    config = Config.from_text(f"keypad:\n  source: [fifo, phone, evdev, bells]\n  fifo: {fifo}\n"
                              "  device: no-such-keypad\nphone:\n  bind: 127.0.0.1\n  port: 0\n")
    keypad = open_keypad(config)
    assert config.problems == ["config line 2: keypad.source: 'bells' is not a keypad source (none, terminal, "
                               "fifo, evdev, gpio, phone); left out."]
    assert isinstance(keypad, Keypads)
    assert [type(k) for k in members(keypad)] == [CharKeypad, PhoneKeypad, EvdevKeypad]
    told: list[str] = []
    usable = working(keypad, told.append)
    assert [type(k) for k in members(usable)] == [CharKeypad, PhoneKeypad]
    assert len(told) == 1 and "Plug in the keypad" in told[0], told
    presses = PressQueue()
    assert usable is not None
    usable.start(presses)
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, b"1r")
        os.close(fd)
        assert wait_for(presses, 2) == ["1", "R"]
    finally:
        usable.stop()
    assert working(None, told.append) is None
