"""Hands-free play's settings, declared once: ``listen``, ``live.*`` and the private keypad's ``keypad.*``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assistant.schema import ConfigError, LeftOut, Setting, field_maker

if TYPE_CHECKING:
    from assistant.config import Config

LISTEN_MODES = ("always", "push-to-talk")
KEYPAD_SOURCES = ("none", "terminal", "fifo", "evdev", "gpio", "phone")


def _sources(value: Any) -> str | list[str]:
    """One keypad source, or a list of them: an unknown one in a list is left out, the rest kept."""
    if isinstance(value, str):
        if value not in KEYPAD_SOURCES:
            raise ConfigError(f"must be one of {', '.join(KEYPAD_SOURCES)}")
        return value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"must be one of {', '.join(KEYPAD_SOURCES)}, or a list of them")
    unknown = [v for v in value if v not in KEYPAD_SOURCES]
    kept = [v for v in value if v in KEYPAD_SOURCES]
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise LeftOut(f"{names} {'is' if len(unknown) == 1 else 'are'} not a keypad source "
                      f"({', '.join(KEYPAD_SOURCES)})", kept)
    return value


def keypad_sources(config: Config) -> tuple[str, ...]:
    """The keypad sources ``keypad.source`` names, checked (one or a list; "none": none)."""
    value = config.value("keypad.source")
    return (value,) if isinstance(value, str) else tuple(value)


SETTINGS: tuple[Setting, ...] = (
    Setting("listen", "always", "always: everything the microphone hears is listened to; push-to-talk: only "
            "what is said after a press of the talk key.", choices=LISTEN_MODES, player=True),
    Setting("live.input_device", "", "The microphone: part of its name (\"\" = the default input).", player=True),
    Setting("live.block_seconds", 0.1, "Seconds of audio per block.", minimum=0.05, maximum=0.5),
    Setting("live.mute_tail_seconds", 0.4, "What the microphone hears this long after the assistant speaks "
            "is dropped.", minimum=0.0, maximum=3.0),
    Setting("live.answer_early", True, "Act as soon as the words so far are a whole command."),
    Setting("live.early_steady_blocks", 2, "Blocks the words must hold still before answering early.",
            minimum=1, maximum=10),
    Setting("live.spoken_extra_seconds", 3.0, "Added to every spoken answer's time limit.", minimum=0.0),
    Setting("live.retry_seconds", 2.0, "How often a missing microphone is retried.", minimum=0.2),
    Setting("live.talk_seconds", 6.0, "Push-to-talk: how long one press listens at most.",
            minimum=1.0, maximum=60.0),
    Setting("keypad.source", "terminal", "Private presses from: terminal, evdev, fifo, gpio, phone or none "
            "(or a list of them).", check=_sources, player=True),
    Setting("keypad.device", "keypad", "evdev: part of the input device's name."),
    Setting("keypad.fifo", "/tmp/omega-keypad", "fifo: the named pipe presses are written into.", path=True),
    Setting("keypad.keys", {}, "Which keys are which buttons (key: 0, 1, 2 or R).", group=True),
    Setting("keypad.talk_key", None, "The talk key(s) for push-to-talk (unset: \"+\" and the space bar).",
            check=lambda value: value),
    Setting("keypad.gpio.pins", {"0": 5, "1": 6, "2": 13, "R": 26}, "GPIO (BCM) number of each button.",
            group=True),
    Setting("keypad.gpio.talk", 16, "GPIO of the talk button (\"\" = none).", check=lambda value: value),
    Setting("keypad.gpio.led", 12, "GPIO of the status LED (\"\" = none).", check=lambda value: value),
    Setting("keypad.gpio.led_active_high", True, "The LED lights when its pin is high."),
    Setting("keypad.gpio.pull_up", True, "The pins' own pull-up resistors (a button connects its pin to ground)."),
    Setting("keypad.gpio.bounce_seconds", 0.05, "Presses closer than this on one button are contact bounce.",
            minimum=0.0, maximum=1.0),
)

#: ``LiveSettings``' fields that are settings are made from their declarations by this.
setting_field = field_maker(SETTINGS)
