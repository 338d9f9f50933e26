"""The announcer's logic: order, echo, sounds, the speaking signal, and sound that fails.

The voices are real (Piper, cached in a temporary folder); the output is a MemorySink or,
for the device-choice logic only, a stand-in sounddevice module (the real device path is
tested through PulseAudio in test_voice_audio.py).
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.config import Config
from assistant.engine import Say, Sound
from assistant.voice import playback
from assistant.voice.announcer import SpokenAnnouncer
from assistant.voice.effects import Audio
from assistant.voice.playback import AudioUnavailable, DeviceSink, MemorySink, find_output
from assistant.voice.voices import Voices


@pytest.fixture(scope="module")
def voices(tmp_path_factory: pytest.TempPathFactory) -> Voices:
    folder = tmp_path_factory.mktemp("voice-cache")
    return Voices.from_config(Config.from_text(f"voice: {{cache_dir: {folder}}}\n"), load="now")


class WatchingSink(MemorySink):
    """Notes whether the speaking signal was up at each write; can be told to fail."""

    def __init__(self, announcer_box: list[SpokenAnnouncer], fail_after: int | None = None) -> None:
        super().__init__(22050)
        self.box = announcer_box
        self.speaking_seen: list[bool] = []
        self.fail_after = fail_after
        self.closed = False

    def write(self, audio: Audio, rate: int) -> None:
        self.speaking_seen.append(self.box[0].speaking.is_speaking())
        if self.fail_after is not None and len(self.speaking_seen) > self.fail_after:
            raise OSError("device unplugged")
        super().write(audio, rate)

    def close(self) -> None:
        self.closed = True


def make(voices: Voices, fail_after: int | None = None) -> tuple[SpokenAnnouncer, WatchingSink, list[str],
                                                                 list[str]]:
    lines: list[str] = []
    reports: list[str] = []
    box: list[SpokenAnnouncer] = []
    sink = WatchingSink(box, fail_after)
    announcer = SpokenAnnouncer(voices, sink, echo=True, write=lines.append, report=reports.append)
    box.append(announcer)
    return announcer, sink, lines, reports


@pytest.mark.model
def test_outputs_are_spoken_in_order_with_their_lines(voices: Voices) -> None:
    announcer, sink, lines, reports = make(voices)
    announcer.announce([Say("VIRUS", "Code 0 1."), Sound("buzz"), Say("BSAT1", "Shields are down. Sorry.")])
    assert lines == ["VIRUS: Code 0 1.", "SOUND: buzz", "BSAT1: Shields are down. Sorry."]
    assert reports == []
    chunks = sink.utterances[-1]
    assert len(chunks) == 4  # one sentence, the buzz, two sentences
    buzz = voices.sound("buzz")[0]
    assert np.array_equal(chunks[1], buzz)
    assert all(sink.speaking_seen) and not announcer.speaking.is_speaking()
    assert announcer.speaking.ended_at >= announcer.speaking.started_at > 0
    timing = announcer.last
    assert timing.first_audio_at is not None and timing.finished_at >= timing.first_audio_at
    assert timing.audio_seconds == pytest.approx(sum(len(c) for c in chunks) / 22050, rel=0.01)


@pytest.mark.model
def test_unknown_speaker_is_the_narrator_and_unknown_sound_a_beep(voices: Voices) -> None:
    announcer, sink, lines, reports = make(voices)
    announcer.announce([Say("DEALER", "Teleport complete."), Sound("kazoo"), Sound("kazoo")])
    narrator = np.concatenate([r.audio for r in voices.utterance("NARRATOR", "Teleport complete.")])
    assert np.array_equal(sink.utterances[-1][0][: len(narrator)], narrator)
    assert np.array_equal(sink.utterances[-1][1], voices.sound("beep")[0])
    assert reports == ["no sound called 'kazoo'; playing a beep. Add it under voice.sounds in config.yaml."]


@pytest.mark.model
def test_urgency_makes_bsat1_glitch_more(voices: Voices) -> None:
    import random

    lengths = {}
    for urgency in (0.0, 1.0):
        announcer, sink, _, _ = make(voices)
        announcer.rng = random.Random(5)
        announcer.urgency = lambda u=urgency: u  # type: ignore[misc]
        announcer.announce([Say("BSAT1", "The virus has reached the system core.")])
        lengths[urgency] = len(sink.audio())
    assert lengths[1.0] > lengths[0.0]


def test_urgency_follows_the_countdown() -> None:
    from assistant.games.omega_virus import urgency
    from assistant.games.omega_virus.engine import CommandCenter, Phase
    from assistant.games.prologue import create as prologue
    from assistant.session import PrintAnnouncer, Session

    session = Session.new("omega-virus", 1, {}, PrintAnnouncer(lambda line: None), None)
    game = session.game
    assert isinstance(game, CommandCenter)
    game.phase, game.limit_ms, game.used_ms = Phase.MOVE, 60_000, 0
    assert urgency(game) == 0.0
    game.used_ms = 30_000
    assert urgency(game) == pytest.approx(0.25)
    game.used_ms = 60_000
    assert urgency(game) == 1.0
    game.phase = Phase.SIGNON
    assert urgency(game) == 0.0
    assert urgency(prologue(1, {})) == 0.0
    announcer = SpokenAnnouncer(None, None)
    announcer.follow(session)
    game.phase, game.used_ms = Phase.MOVE, 45_000
    assert announcer.urgency() == pytest.approx(0.5625)


@pytest.mark.model
def test_broken_urgency_hook_is_calm(voices: Voices) -> None:
    announcer, sink, lines, _ = make(voices)
    announcer.urgency = lambda: 1 / 0  # type: ignore[assignment,misc]
    announcer.announce([Say("BSAT1", "Shields are up.")])
    assert lines == ["BSAT1: Shields are up."]


@pytest.mark.model
def test_sound_that_fails_mid_way_leaves_the_text(voices: Voices) -> None:
    announcer, sink, lines, reports = make(voices, fail_after=1)
    outputs = [Say("VIRUS", "Code 0 1."), Say("VIRUS", "Code 0 2."), Say("VIRUS", "Code 1 1.")]
    announcer.announce(outputs)
    assert lines == [o.line() for o in outputs]
    assert reports == ["sound stopped working (device unplugged); the game goes on in text."]
    assert announcer.sink is None and sink.closed
    announcer.announce([Say("VIRUS", "Teleport complete.")])
    assert lines[-1] == "VIRUS: Teleport complete."
    assert not announcer.speaking.is_speaking()


def test_no_portaudio_means_text_with_a_clear_message(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def missing() -> Any:
        raise AudioUnavailable("no audio output: PortAudio library not found. Install PortAudio "
                               "(Debian/Raspberry Pi OS: sudo apt install libportaudio2).")

    monkeypatch.setattr(playback, "import_sounddevice", missing)
    reports: list[str] = []
    config = Config.from_text(f"voice: {{cache_dir: {tmp_path}}}\n")
    announcer = SpokenAnnouncer.from_config(config, echo=True, report=reports.append)
    assert announcer.sink is None
    assert any("libportaudio2" in r and "goes on in text" in r for r in reports)
    announcer.announce([Say("VIRUS", "Code 0 1."), Sound("buzz")])
    assert capsys.readouterr().out.splitlines() == ["VIRUS: Code 0 1.", "SOUND: buzz"]


def test_bad_config_lines_are_printed_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(playback, "import_sounddevice", lambda: (_ for _ in ()).throw(AudioUnavailable("x")))
    config = Config.from_text(f"voice: {{cache_dir: {tmp_path}}}\ncharacters:\n  virus: {{volume: loud}}\n",
                              Path("config.yaml"))
    SpokenAnnouncer.from_config(config, report=lambda m: None)
    err = capsys.readouterr().err
    assert "config: config.yaml line 3: characters.virus.volume = 'loud' must be a number" in err
    assert config.problems == []


def test_glitch_seed_makes_the_live_glitches_repeatable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(playback, "import_sounddevice", lambda: (_ for _ in ()).throw(AudioUnavailable("x")))

    def draws(seed: int) -> list[float]:
        config = Config.from_text(f"voice: {{cache_dir: {tmp_path}, glitch_seed: {seed}}}\n")
        announcer = SpokenAnnouncer.from_config(config, report=lambda m: None)
        return [announcer.rng.random() for _ in range(5)]

    assert draws(3) == draws(3)
    assert draws(-1) != draws(-1)


# ---------------------------------------------------------------- device choice (stand-in module)


class FakeStream:
    def __init__(self, samplerate: int, channels: int, **_: Any) -> None:
        self.samplerate = samplerate
        self.channels = channels
        self.active = False
        self.written: list[np.ndarray] = []
        self.latency = 0.02

    def start(self) -> None:
        self.active = True

    def stop(self) -> None:
        self.active = False

    def close(self) -> None:
        pass

    def write(self, frames: np.ndarray) -> None:
        self.written.append(frames)


def fake_sounddevice(refuse_rates: set[int], mono: bool = True) -> types.SimpleNamespace:
    devices = [
        {"name": "bcm2835 Headphones: - (hw:0,0)", "max_output_channels": 2, "default_samplerate": 48000},
        {"name": "USB Audio Device: - (hw:1,0)", "max_output_channels": 2, "default_samplerate": 44100},
        {"name": "USB PnP Sound Device mic", "max_output_channels": 0, "default_samplerate": 48000},
    ]

    def query_devices(device: int | None = None, kind: str | None = None) -> Any:
        if device is None and kind is None:
            return devices
        return devices[device if device is not None else 0]

    def check_output_settings(device: int | None, samplerate: int, channels: int, dtype: str) -> None:
        if samplerate in refuse_rates:
            raise ValueError("Invalid sample rate [PaErrorCode -9997]")
        if channels == 1 and not mono:
            raise ValueError("Invalid number of channels [PaErrorCode -9998]")

    return types.SimpleNamespace(query_devices=query_devices, check_output_settings=check_output_settings,
                                 OutputStream=FakeStream)


def test_device_by_name_substring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playback, "import_sounddevice", lambda: fake_sounddevice(set()))
    assert find_output("usb")[:2] == (1, "USB Audio Device: - (hw:1,0)")
    assert find_output("")[0] is None
    index, name, problems = find_output("hdmi")
    assert index is None and name.startswith("bcm2835")
    assert "no output device matches voice.output_device = 'hdmi'" in problems[0]
    assert "'USB Audio Device: - (hw:1,0)'" in problems[0] and "mic" not in problems[0]


def test_refused_rate_is_resampled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playback, "import_sounddevice", lambda: fake_sounddevice({22050}, mono=False))
    sink = DeviceSink.open("usb", 22050)
    assert (sink.rate, sink.channels) == (44100, 2)
    sink.begin()
    sink.write(np.ones(22050, np.float32) * 0.5, 22050)
    sink.end()
    frames = sink.stream.written[-1]
    assert frames.shape == (44100, 2)
    assert np.allclose(frames[1000:-1000], 0.5, atol=0.01)


def test_device_refusing_everything_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playback, "import_sounddevice",
                        lambda: fake_sounddevice({22050, 44100, 48000}))
    with pytest.raises(AudioUnavailable, match="refused every format"):
        DeviceSink.open("usb", 22050)


@pytest.mark.model
def test_keep_trying_waits_for_the_speaker_and_says_the_whole_answer_again(
        voices: Voices, monkeypatch: pytest.MonkeyPatch) -> None:
    announcer, broken, lines, reports = make(voices, fail_after=1)
    announcer._device = ("usb speaker", 22050)  # as if opened from config
    tries: list[str] = []
    fresh = MemorySink(22050)

    def reopen(query: str, rate: int, problems: list[str] | None = None) -> MemorySink:
        tries.append(query)
        if len(tries) < 3:
            raise AudioUnavailable("no audio output device found.")
        return fresh

    monkeypatch.setattr(DeviceSink, "open", staticmethod(reopen))
    rescans: list[int] = []
    announcer.keep_trying(0.01, before_reopen=lambda: rescans.append(1))
    outputs = [Say("VIRUS", "Code 0 1."), Say("VIRUS", "Code 0 2."), Say("VIRUS", "Code 1 1.")]
    announcer.announce(outputs)
    assert lines == [o.line() for o in outputs]  # each line once, although its sound came twice
    assert len(tries) == 3 and len(rescans) == 3
    assert len(reports) == 2
    assert "speaker is not working (device unplugged)" in reports[0] and "the game waits" in reports[0]
    assert reports[1] == "the speaker works again; repeating what was not heard."
    assert broken.closed and announcer.sink is fresh
    assert len(fresh.utterances[-1]) == 3  # the whole answer, from its first sentence
    assert not announcer.speaking.is_speaking()


@pytest.mark.model
def test_keep_trying_opens_a_released_output_quietly(voices: Voices, monkeypatch: pytest.MonkeyPatch) -> None:
    announcer, first, lines, reports = make(voices)
    announcer._device = ("", 22050)
    announcer.keep_trying(0.01)
    second = MemorySink(22050)
    monkeypatch.setattr(DeviceSink, "open", staticmethod(lambda query, rate, problems=None: second))
    announcer.release_output()
    assert first.closed and announcer.sink is None
    announcer.announce([Say("BSAT1", "Shields are up.")])
    assert reports == [] and lines == ["BSAT1: Shields are up."]
    assert announcer.sink is second and len(second.utterances) == 1


@pytest.mark.model
def test_closing_ends_the_wait_for_a_speaker(voices: Voices, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    announcer, _, lines, reports = make(voices, fail_after=0)
    announcer._device = ("", 22050)
    announcer.keep_trying(0.05)
    monkeypatch.setattr(DeviceSink, "open", staticmethod(
        lambda query, rate, problems=None: (_ for _ in ()).throw(AudioUnavailable("gone"))))
    threading.Timer(0.3, announcer._stop_waiting.set).start()
    announcer.announce([Say("VIRUS", "Code 2 2.")])
    assert lines == ["VIRUS: Code 2 2."] and len(reports) == 1


@pytest.mark.model
def test_the_volume_scales_what_is_played(voices: Voices, tmp_path: Path) -> None:
    """The box's volume reaches the samples: every voice and sound, quieter by its level's gain."""
    from assistant.box import Box, Games
    from assistant.volume import Volume, gain

    announcer, sink, lines, reports = make(voices)
    outputs = [Say("NARRATOR", "Volume test."), Sound("chime")]
    announcer.announce(outputs)
    loud = sink.audio()
    box = Box(announcer, Games(lambda name: {}, None), Volume.load(tmp_path), on_volume=announcer.set_gain)
    box.show_menu()
    box.hear("volume five")
    assert announcer.gain == gain(5)
    sink.utterances.clear()
    announcer.announce(outputs)
    quiet = sink.audio()
    assert len(quiet) == len(loud) and np.max(np.abs(loud)) > 0.1
    assert np.allclose(quiet, loud * gain(5), atol=1e-6)
    box.hear("volume zero")
    sink.utterances.clear()
    announcer.announce(outputs)
    assert not np.any(sink.audio())
    # a new box (a restart) takes the kept level at once
    announcer.set_gain(1.0)
    Box(announcer, Games(lambda name: {}, None), Volume.load(tmp_path), on_volume=announcer.set_gain)
    assert announcer.gain == 0.0


@pytest.mark.model
def test_the_speaker_problem_is_on_the_speaking_signal_while_it_is_waited_for(
        voices: Voices, monkeypatch: pytest.MonkeyPatch) -> None:
    """(the live loop's status light shows "problem" meanwhile)"""
    announcer, broken, lines, reports = make(voices, fail_after=0)
    announcer._device = ("usb speaker", 22050)
    seen: list[str] = []
    tries: list[int] = []

    def reopen(query: str, rate: int, problems: list[str] | None = None) -> MemorySink:
        tries.append(1)
        if len(tries) < 2:
            raise AudioUnavailable("no audio output device found.")
        return MemorySink(22050)

    monkeypatch.setattr(DeviceSink, "open", staticmethod(reopen))
    announcer.keep_trying(0.01, before_reopen=lambda: seen.append(announcer.speaking.problem))
    assert announcer.speaking.problem == ""
    announcer.announce([Say("VIRUS", "Code 0 1.")])
    assert seen == ["device unplugged", "device unplugged"]
    assert announcer.speaking.problem == ""


INTERRUPTED_RESCAN = """
import os, signal, sounddevice
from assistant.voice.playback import rescan_devices

real_check = sounddevice._check

def check(code, message=""):  # Ctrl-C arrives while PortAudio stops, before sounddevice counts it
    if message.startswith("Error terminating"):
        os.kill(os.getpid(), signal.SIGINT)
    return real_check(code, message)

sounddevice._check = check
try:
    rescan_devices()
except KeyboardInterrupt:
    print("interrupted after the rescan:", sounddevice._initialized)
sounddevice._check = real_check  # the exit stops PortAudio without a Ctrl-C
"""


def test_ctrl_c_during_a_rescan_waits_for_portaudio_to_start_again(tmp_path: Path) -> None:
    """Found by CI: Ctrl-C landing inside PortAudio's restart left sounddevice's count at one
    with PortAudio stopped, and the exit printed a traceback. The real PortAudio restarts here."""
    import subprocess
    import sys

    from tests.live_helpers import ctrl_c_reaches_it

    done = subprocess.run([sys.executable, "-c", INTERRUPTED_RESCAN], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[1], preexec_fn=ctrl_c_reaches_it)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip() == "interrupted after the rescan: 1", (done.stdout, done.stderr)


def test_interrupts_held_raise_after_the_block() -> None:
    import os
    import signal

    # Ctrl-C as at a terminal, even in a suite started without job control (SIGINT ignored there)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        finished = []
        with pytest.raises(KeyboardInterrupt):
            with playback.interrupts_held():
                os.kill(os.getpid(), signal.SIGINT)
                finished.append(True)
        assert finished == [True]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
