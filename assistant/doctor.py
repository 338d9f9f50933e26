"""``assistant doctor``: what will be used for hearing, speaking and private presses, and what is missing.

Every problem comes with the command that fixes it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from assistant.config import Config


def _check(title: str, probe: Callable[[], str]) -> bool:
    try:
        detail = probe()
    except Exception as error:  # noqa: BLE001 - every failure is reported, none is fatal
        print(f"  PROBLEM  {title}: {error}")
        return False
    print(f"  ok       {title}: {detail}")
    return True


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def doctor_main(args: argparse.Namespace, config: Config) -> int:
    ok = True
    print("Audio devices")

    def inputs() -> str:
        from assistant.live.microphone import find_input, input_devices

        names = [name for _, name, _ in input_devices()]
        _, chosen = find_input(config.get("live.input_device", ""))
        return f"will use {chosen!r} (found: {', '.join(names)}); change with live.input_device"

    def outputs() -> str:
        from assistant.voice.playback import find_output

        _, chosen, notes = find_output(config.get("voice.output_device", ""))
        return f"will use {chosen!r}" + (f" ({'; '.join(notes)})" if notes else "") + \
            "; change with voice.output_device"

    ok &= _check("microphone", inputs)
    ok &= _check("speaker", outputs)

    print("Hearing")

    def hearing() -> str:
        from assistant.hearing import HearingSettings, choose

        return choose(HearingSettings.from_config(config)).note

    ok &= _check("recognizer", hearing)

    def vosk_model() -> str:  # the model, its kind and whether every game's words are in it
        from assistant.hearing import HearingSettings
        from assistant.hearing.vosk_engine import doctor_check

        return doctor_check(HearingSettings.from_config(config).vosk_folder)

    from assistant.hearing import HearingSettings, choose

    if choose(HearingSettings.from_config(config)).engine == "vosk":
        ok &= _check("Vosk model", vosk_model)

    print("Voices")

    def voices() -> str:
        from assistant.voice.synth import bundled_voice

        return f"Piper voice {bundled_voice().name} (characters in config.yaml: virus, bsat1, narrator)"

    ok &= _check("speech", voices)

    print("Keypad")

    def keypad() -> str:
        source = config.get("keypad.source", "terminal")
        if source == "gpio":
            return gpio_buttons()
        if source == "evdev":
            from assistant.live.keypad import EvdevKeypad

            path, name = EvdevKeypad(config.get("keypad.device", "keypad")).find()
            return f"input device {name!r} ({path})"
        if source == "fifo":
            return f"named pipe {config.get('keypad.fifo', '/tmp/omega-keypad')}"
        if source == "none":
            return "none: secret codes are spoken, attack shots are random"
        if not _is_terminal(sys.stdin):
            raise RuntimeError("keys typed in the terminal, but this input is not a terminal: start "
                               "`assistant play` in a terminal, or set keypad.source in config.yaml to "
                               "evdev (a USB keypad), fifo or none")
        return "keys typed in this terminal (a USB keypad types here too)"

    def gpio_buttons() -> str:
        from assistant.live.gpio import gpio_settings, open_gpio_keypad

        settings = gpio_settings(config)
        keypad = open_gpio_keypad(config) if settings is not None else None
        if settings is None or keypad is None:
            raise RuntimeError("the GPIO buttons' pins cannot be used (the config problems below say why)")
        keypad.start(lambda button: None)  # takes the pins: says so when there are none
        keypad.stop()
        wiring = ", ".join(f"{button} on GPIO{pin}" for button, pin in settings.pins.items())
        talk = f"; talk button on GPIO{settings.talk}" if settings.talk is not None else "; no talk button"
        return f"GPIO buttons {wiring}{talk}"

    def light() -> str:
        from assistant.live.gpio import open_status_light

        known = len(config.problems)
        status = open_status_light(config)
        if status is None:
            if len(config.problems) > known:
                raise RuntimeError(config.problems.pop().removeprefix("keypad.gpio.led: "))
            return "none (keypad.gpio.led is not set)"
        where = str(status.led.pin)
        status.close()
        return f"LED on {where}"

    ok &= _check("private presses", keypad)
    if config.get("keypad.source", "terminal") == "gpio":
        ok &= _check("status light", light)

    print("Start at boot")

    def service() -> str:
        from assistant.service import UNIT, Plan, make_plan

        found: list[str] = []
        for plan in (make_plan(False), Plan(True, "", Path.home())):
            if plan.unit_path.exists():
                enabled = "enabled" if plan.wants_link.is_symlink() else \
                    f"not enabled: {'sudo ' if plan.system else ''}{' '.join(plan.systemctl('enable', UNIT))}"
                found.append(f"{'system' if plan.system else 'user'} service {plan.unit_path} ({enabled})")
        return "; ".join(found) or "not installed (assistant install-service makes it start at boot)"

    ok &= _check("service", service)

    print("Tools")
    for tool, package in (("espeak-ng", "espeak-ng"), ("pactl", "pulseaudio-utils")):
        found = shutil.which(tool)
        print(f"  {'ok      ' if found else 'missing '} {tool}" +
              ("" if found else f": sudo apt-get install {package} (only the tests need it)"))
    for problem in config.problems:
        print(f"  PROBLEM  config: {problem}")
        ok = False
    print("Everything needed is here." if ok else "Fix the problems above; ./start.sh installs what is missing.")
    return 0 if ok else 1
