"""``assistant doctor``: what will be used for hearing, speaking, private presses and saved games,
and what is missing.

Every problem comes with what fixes it, and the closing line sums up only those fixes (a missing
microphone is plugged in, not installed). Each section is one function in ``SECTIONS``.
"""

from __future__ import annotations

import argparse
import errno
import functools
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from assistant.config import Config, state_dir

#: What fixes a failed check, by its title (the closing line names each fix once).
FIXES = {
    "microphone": "plug in a microphone (or set live.input_device)",
    "speaker": "plug in a speaker (or set voice.output_device)",
    "recognizer": "./start.sh (or `assistant setup`) installs the missing packages and models",
    "speech": "./start.sh installs the missing packages",
    "voice memory": "./start.sh installs the missing packages",
    "Whisper decoder": "./start.sh installs the missing packages",
    "private presses": "connect the keypad, or set keypad.source",
    "status light": "check keypad.gpio.led",
    "saved games": "set state_dir to a folder that can be written",
    "service": "see the service line",
    "config": "correct the config lines named above",
}


class Doctor:
    """The checks' results: each printed as it is made, and the fixes the failed ones need."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.fixes: list[str] = []
        #: The config problems a section has told already (the settings' own section leaves them out).
        self.told: set[str] = set()

    def check(self, title: str, probe: Callable[[], str]) -> bool:
        try:
            detail = probe()
        except Exception as error:  # noqa: BLE001 - every failure is reported, none is fatal
            print(f"  PROBLEM  {title}: {error}")
            self.needs(title)
            return False
        print(f"  ok       {title}: {detail}")
        return True

    def needs(self, title: str) -> None:
        fix = FIXES.get(title.split(" (")[0], f"see {title}")
        if fix not in self.fixes:
            self.fixes.append(fix)

    def new_problems(self, read: Callable[[], object]) -> list[str]:
        """Read settings with ``read`` and take out the config problems it found (reported here)."""
        known = len(self.config.problems)
        read()
        found = self.config.problems[known:]
        del self.config.problems[known:]
        self.told.update(found)
        return found


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def audio(doctor: Doctor) -> bool:
    config = doctor.config
    print("Audio devices")

    def inputs() -> str:
        from assistant.live.microphone import find_input, input_devices

        names = [name for _, name, _ in input_devices()]
        _, chosen = find_input(config.value("live.input_device"))
        return f"will use {chosen!r} (found: {', '.join(names)}); change with live.input_device"

    def outputs() -> str:
        from assistant.voice.playback import find_output

        _, chosen, notes = find_output(config.value("voice.output_device"))
        return f"will use {chosen!r}" + (f" ({'; '.join(notes)})" if notes else "") + \
            "; change with voice.output_device"

    return doctor.check("microphone", inputs) & doctor.check("speaker", outputs)


def hearing(doctor: Doctor) -> bool:
    print("Hearing")

    def recognizer() -> str:  # what hears here, what auto picks, and what the published figures were heard with
        from assistant.hearing import FIGURES, MEASURE_VOSK_HYBRID, MEASURED, HearingSettings, choose

        settings = HearingSettings.from_config(doctor.config)
        chosen = choose(settings)
        measured = f"the figures in {FIGURES} are for {MEASURED}"
        if settings.recognizer == "auto":
            why = "" if chosen.combination == MEASURED else f" ({chosen.note})"
            return f"auto picks {chosen.combination} on this machine{why}; {measured}"
        auto = choose(replace(settings, recognizer="auto")).combination
        line = f"{settings.recognizer} (set in config.yaml): {chosen.combination}"
        if chosen.name != "vosk-hybrid":
            return f"{line}; auto would pick {auto} on this machine; {measured}"
        return (f"{line}, unmeasured here (auto would pick {auto} on this machine; {measured}). Measure it "
                f"beside {MEASURED} on this machine (about 400 clips each): {MEASURE_VOSK_HYBRID}")

    from assistant.hearing import HearingSettings, choose, find_model

    ok = doctor.check("recognizer", recognizer)
    settings = HearingSettings.from_config(doctor.config)
    if choose(settings).engine == "vosk":

        def vosk_model() -> str:  # the model, its kind and whether every game's words are in it
            from assistant.hearing.vosk_engine import doctor_check

            return doctor_check(settings.vosk_folder)

        ok &= doctor.check("Vosk model", vosk_model)
    choice = choose(settings)
    if "whisper" in (choice.engine, choice.second):

        def whisper_decoder() -> str:  # the decoder loaded as hearing loads it: its int8 products checked
            from assistant.hearing.whisper_decoder import Decoder

            decoder = Decoder.load(find_model(settings.whisper.model, settings.models_dir) / "model.bin")
            if decoder.int8_because:
                raise RuntimeError(f"hearing takes about twice the CPU time here: {decoder.int8_because}, so "
                                   "Whisper's decoding runs in plain float arithmetic (it hears the same)")
            return "Whisper's decoder runs in int8 (onnxruntime's kernels, checked on this CPU)"

        ok &= doctor.check("Whisper decoder", whisper_decoder)
    return ok


def voices(doctor: Doctor) -> bool:
    print("Voices")

    def speech() -> str:
        from assistant.voice.synth import bundled_voice

        return f"Piper voice {bundled_voice().name} (characters in config.yaml: virus, bsat1, narrator)"

    def memory() -> str:  # its decoder in windows (assistant/voice/vocoder.py), or why not
        import importlib.util

        from assistant.voice.synth import bundled_voice, voice_id
        from assistant.voice.vocoder import MANIFEST, parts_dir, split_folder
        from assistant.voice.voices import VoiceSettings

        if importlib.util.find_spec("onnx") is None:
            raise RuntimeError("the onnx package is missing, so the voice runs whole: its memory grows by about "
                               "20 MB a second of each sentence it says")
        folder = parts_dir(VoiceSettings.from_config(doctor.config).cache_dir)
        if folder is None:
            return "the voice runs whole (no folder to keep its parts in)"
        cut = split_folder(folder, voice_id(bundled_voice()))
        if (cut / MANIFEST).is_file():
            return f"the voice's decoder runs in windows (its parts in {cut})"
        return "the voice is cut in two when first loaded (`assistant setup` does it), then runs in bounded memory"

    return doctor.check("speech", speech) & doctor.check("voice memory", memory)


def keypad(doctor: Doctor) -> bool:
    """Each source ``keypad.source`` names, as play will open it; a source that is not one is
    flagged here (and play leaves it out)."""
    from assistant.live.settings import keypad_sources

    config = doctor.config
    print("Keypad")
    sources: tuple[str, ...] = ()

    def read() -> None:
        nonlocal sources
        sources = keypad_sources(config)

    ok = True
    for problem in doctor.new_problems(read):
        print(f"  PROBLEM  private presses: {problem}")
        doctor.needs("config")
        ok = False
    for source in sources:
        title = "private presses" if len(sources) == 1 else f"private presses ({source})"
        ok &= doctor.check(title, functools.partial(_source, config, source, len(sources) > 1))
    if not sources:
        print("  ok       private presses: none (keypad.source names no usable source)")
    if "gpio" in sources:
        ok &= doctor.check("status light", lambda: _light(config))
    return ok


def _source(config: Config, source: str, several: bool) -> str:
    """What ``source`` is, as play would open it; raises with what to do when it cannot be used."""
    if source == "gpio":
        return _gpio_buttons(config)
    if source == "evdev":
        from assistant.live.keypad import EvdevKeypad

        path, name = EvdevKeypad(config.value("keypad.device")).find()
        return f"input device {name!r} ({path})"
    if source == "fifo":
        return f"named pipe {config.value('keypad.fifo')}"
    if source == "phone":
        return _phone(config)
    if source == "none":
        return "none: secret codes are spoken, attack shots are random"
    if not _is_terminal(sys.stdin):
        if several:
            return "keys typed in the terminal: left out, as this input is not a terminal (the others serve)"
        raise RuntimeError("keys typed in the terminal, but this input is not a terminal: start "
                           "`assistant play` in a terminal, or set keypad.source in config.yaml to "
                           "evdev (a USB keypad), fifo, phone or none")
    return "keys typed in this terminal (a USB keypad types here too)"


def _phone(config: Config) -> str:
    """Every player's phone: the address phones open, if the port is free to listen on."""
    from assistant.phone import PhoneKeypad, PhoneSettings

    settings = PhoneSettings.from_config(config)
    phones = PhoneKeypad(settings)
    host = phones._bind_host()
    if settings.port:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            try:
                probe.bind((host, settings.port))
            except OSError as error:
                busy = " by another program, or by the assistant already running" \
                    if error.errno == errno.EADDRINUSE else ""
                raise RuntimeError(f"phones: the page cannot listen on {host}:{settings.port} "
                                   f"({error.strerror or error}{busy}); set phone.port (or phone.bind)") from error
    if phones._announced_host() is None:
        return (f"phones, on port {settings.port}, but this box is not on a network yet (connect it; "
                "BSat1 says the address and PIN when the game starts)")
    if not settings.port:
        return "phones, on a free port BSat1 says at the start with the PIN (phone.port: 0)"
    return f"phones open {phones.url} and join with the PIN BSat1 says at the start"


def _gpio_buttons(config: Config) -> str:
    from assistant.live.gpio import gpio_settings, open_gpio_keypad

    settings = gpio_settings(config)
    pad = open_gpio_keypad(config) if settings is not None else None
    if settings is None or pad is None:
        raise RuntimeError("the GPIO buttons' pins cannot be used (the config problems below say why)")
    pad.start(lambda button: None)  # takes the pins: says so when there are none
    pad.stop()
    wiring = ", ".join(f"{button} on GPIO{pin}" for button, pin in settings.pins.items())
    talk = f"; talk button on GPIO{settings.talk}" if settings.talk is not None else "; no talk button"
    return f"GPIO buttons {wiring}{talk}"


def _light(config: Config) -> str:
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


def saved_games(doctor: Doctor) -> bool:
    print("Saved games")
    folder: Path | None = None

    def read() -> None:
        nonlocal folder
        folder = state_dir(doctor.config)

    ok = True
    for problem in doctor.new_problems(read):
        print(f"  PROBLEM  config: {problem}")
        doctor.needs("config")
        ok = False
    assert folder is not None
    return doctor.check("saved games", lambda: writable_folder(folder)) and ok


def writable_folder(folder: Path) -> str:
    """Whether unfinished games can be saved in ``folder``, found without leaving anything there:
    the folder, or the nearest folder above it that exists, is tried with a scratch folder."""
    from assistant.journal import why_not_saved

    where = folder
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        scratch = tempfile.mkdtemp(prefix=".doctor-", dir=folder if where == folder else where)
        if where != folder:  # the folder itself must be makeable there, too (not only a file in it)
            os.rmdir(scratch)
            scratch = tempfile.mkdtemp(prefix=".doctor-", dir=where)
    except OSError as error:
        raise RuntimeError(f"unfinished games cannot be saved: {why_not_saved(error, folder)}") from error
    os.rmdir(scratch)
    if where == folder:
        return f"unfinished games are kept in {folder}"
    return f"unfinished games will be kept in {folder} (made at the first game)"


def service(doctor: Doctor) -> bool:
    print("Start at boot")

    def installed() -> str:
        from assistant.service import UNIT, Plan, make_plan

        found: list[str] = []
        for plan in (make_plan(False), Plan(True, "", Path.home())):
            if plan.unit_path.exists():
                enabled = "enabled" if plan.wants_link.is_symlink() else \
                    f"not enabled: {'sudo ' if plan.system else ''}{' '.join(plan.systemctl('enable', UNIT))}"
                found.append(f"{'system' if plan.system else 'user'} service {plan.unit_path} ({enabled})")
        return "; ".join(found) or "not installed (assistant install-service makes it start at boot)"

    return doctor.check("service", installed)


def tools(doctor: Doctor) -> bool:
    print("Tools")
    for tool, package in (("espeak-ng", "espeak-ng"), ("pactl", "pulseaudio-utils")):
        found = shutil.which(tool)
        print(f"  {'ok      ' if found else 'missing '} {tool}" +
              ("" if found else f": sudo apt-get install {package} (only the tests need it)"))
    return True


def settings(doctor: Doctor) -> bool:
    """Every problem ``assistant play`` reports of the settings, found by the code play reads them
    with (assistant/play.py's ``settings_problems``), but for those told in a section above."""
    from assistant.play import settings_problems

    print("Settings")
    problems = [problem for problem in settings_problems(doctor.config) if problem not in doctor.told]
    for problem in problems:
        print(f"  PROBLEM  config: {problem}")
        doctor.needs("config")
    if not problems:
        where = doctor.config.path or "no settings file: the defaults"
        print(f"  ok       config: {where} (every key is a setting, every value can be used)")
    return not problems


#: The sections, in the order printed; a new one is a function taking the Doctor, added here.
SECTIONS: tuple[Callable[[Doctor], bool], ...] = (audio, hearing, voices, keypad, saved_games, service, tools,
                                                 settings)


def doctor_main(args: argparse.Namespace, config: Config) -> int:
    doctor = Doctor(config)
    ok = True
    for section in SECTIONS:
        ok &= section(doctor)
    print("Everything needed is here." if ok else f"To fix: {'; '.join(doctor.fixes)}.")
    return 0 if ok else 1
