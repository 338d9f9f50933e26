"""Real audio: speech goes through sounddevice into a PulseAudio null sink, is recorded back from
its monitor, and a real recognizer hears the words. Also: the game clock stands still while
the assistant speaks.

Needs PulseAudio (tests/audio_env.py starts it); when it cannot be started these tests FAIL.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from assistant import textplay
from assistant.config import PROJECT_ROOT, Config
from assistant.engine import Command, Output, Say, Sound
from assistant.sentences import SentenceSet
from assistant.session import Session
from assistant.voice.announcer import SpokenAnnouncer
from assistant.voice.playback import DeviceSink
from tests.audio_env import AudioEnv, AudioEnvError, Recorder, ensure_audio, private_mic, private_sink
from tests.support.check import PhraseEar

pytestmark = [pytest.mark.audio, pytest.mark.model]

PHRASES = ["Code 0 1.", "Code 1 2.", "Code 2 0.", "Explore room 102.", "Explore room 210.",
           "Shields are down.", "Shields are up.", "Teleport complete.", "BSat1 systems failing.",
           "Red player, enter your code.", "Blue player, enter your code."]


@pytest.fixture(scope="module")
def audio() -> AudioEnv:
    try:
        return ensure_audio()
    except (AudioEnvError, OSError, subprocess.SubprocessError) as error:
        pytest.fail(f"PulseAudio is needed for the real-audio tests and could not be started: {error}")


@pytest.fixture(scope="module")
def cache_config(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"voice: {{cache_dir: {tmp_path_factory.mktemp('voice-cache')}}}\n"


@pytest.fixture(scope="module")
def ear() -> PhraseEar:
    return PhraseEar.for_phrases(PHRASES)


@pytest.fixture(scope="module")
def sink(audio: AudioEnv) -> Iterator[str]:
    with private_sink("voice") as name:
        yield name


@pytest.fixture(scope="module")
def announcer(sink: str, cache_config: str) -> Iterator[SpokenAnnouncer]:
    """Made the way `assistant play --speak` makes it, playing into our private sink."""
    reports: list[str] = []
    announcer = SpokenAnnouncer.from_config(Config.from_text(cache_config), echo=False, report=reports.append)
    assert reports == []
    assert announcer.sink is not None, "no audio device reached"
    yield announcer
    announcer.close()


def record(announcer: SpokenAnnouncer, sink: str, outputs: list[Output]) -> np.ndarray:
    with Recorder(f"{sink}.monitor") as recorder:
        announcer.announce(outputs)
    return recorder.samples()


@pytest.mark.parametrize(("speaker", "text", "words"), [
    ("VIRUS", "Code 0 1.", "code zero one"),
    ("BSAT1", "Explore room 102.", "explore room one zero two"),
    ("NARRATOR", "Red player, enter your code.", "red player enter your code"),
])
def test_spoken_words_come_out_of_the_speaker(sink: str, announcer: SpokenAnnouncer, ear: PhraseEar,
                                              speaker: str, text: str, words: str) -> None:
    start = time.monotonic()
    recorded = record(announcer, sink, [Say(speaker, text)])
    elapsed = time.monotonic() - start
    heard_seconds = np.count_nonzero(np.abs(recorded) > 300) / 16000
    assert heard_seconds > 0.5, "nothing audible reached the sink's monitor"
    assert ear.hear_pcm(recorded) == words
    # announce returned only after the audio had been played
    assert elapsed >= 0.9 * announcer.last.audio_seconds


def test_a_long_answer_and_a_sound_are_all_heard(sink: str, announcer: SpokenAnnouncer, ear: PhraseEar) -> None:
    recorded = record(announcer, sink, [Say("VIRUS", "Shields are down."), Sound("buzz"),
                                        Say("BSAT1", "Teleport complete. Code 2 0.")])
    # the buzz (a 110 Hz square wave, half a second) is in there, and the words around it
    assert buzz_seconds(recorded) >= 0.3
    segments = split_on_silence(recorded)
    heard = [ear.hear_pcm(s) for s in segments]
    assert "shields are down" in heard
    assert "teleport complete" in heard
    assert "code two zero" in heard


def buzz_seconds(samples: np.ndarray, low: float = 100.0, high: float = 120.0) -> float:
    """How long the recording is dominated by a tone between ``low`` and ``high`` Hz."""
    size, hop = 1600, 800
    frames = np.lib.stride_tricks.sliding_window_view(samples.astype(np.float64), size)[::hop]
    power = np.abs(np.fft.rfft(frames * np.hanning(size), axis=1)) ** 2
    freqs = np.fft.rfftfreq(size, 1 / 16000)
    band = power[:, (freqs >= low) & (freqs <= high)].sum(axis=1)
    total = power.sum(axis=1)
    return float(np.sum((band > 0.3 * total) & (total > 1e6)) * hop / 16000)


def split_on_silence(samples: np.ndarray, gap_s: float = 0.2) -> list[np.ndarray]:
    """Cut a recording at pauses of ``gap_s`` or more."""
    frame = 160
    count = len(samples) // frame
    level = np.abs(samples[: count * frame].reshape(count, frame).astype(np.float64)).max(axis=1)
    quiet = level < 200
    segments, start, run = [], None, 0
    for i, q in enumerate(quiet):
        if not q:
            if start is None:
                start = i
            run = 0
        elif start is not None:
            run += 1
            if run * frame >= gap_s * 16000:
                segments.append(samples[start * frame: (i - run + 1) * frame])
                start, run = None, 0
    if start is not None:
        segments.append(samples[start * frame:])
    pad = np.zeros(3200, np.int16)
    return [np.concatenate([pad, s, pad]) for s in segments if len(s) > 1600]


def test_speaking_signal_covers_the_speech(announcer: SpokenAnnouncer) -> None:
    seen: list[bool] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.append(announcer.speaking.is_speaking())
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    try:
        watcher.start()
        time.sleep(0.1)
        announcer.announce([Say("VIRUS", "Teleport complete.")])
        after = announcer.speaking.is_speaking()
        busy_now = announcer.speaking.busy(tail=0.4)
        time.sleep(0.5)
        busy_later = announcer.speaking.busy(tail=0.4)
    finally:
        stop.set()
        watcher.join()
    speaking_s = sum(seen) * 0.01
    assert seen[0] is False and after is False
    assert speaking_s >= 0.6 * announcer.last.audio_seconds
    assert busy_now and not busy_later


@pytest.mark.parametrize(("query", "code", "words"), [("pulse", "Code 2 0.", "code two zero"),
                                                       ("no-such-card", "Code 1 2.", "code one two")])
def test_output_device_chosen_by_name(sink: str, announcer: SpokenAnnouncer, ear: PhraseEar, query: str,
                                      code: str, words: str) -> None:
    problems: list[str] = []
    assert announcer.voices is not None
    device = DeviceSink.open(query, 22050, problems)
    other = SpokenAnnouncer(announcer.voices, device, echo=False)
    try:
        if query == "pulse":
            assert "pulse" in device.device_name and problems == []
        else:
            assert "no output device matches voice.output_device = 'no-such-card'; using the default" \
                in problems[0]
        assert ear.hear_pcm(record(other, sink, [Say("VIRUS", code)])) == words
    finally:
        other.close()


def test_say_command_plays_on_the_device(sink: str, cache_config: str, ear: PhraseEar, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(cache_config)
    env = dict(os.environ, PULSE_SINK=sink)
    with Recorder(f"{sink}.monitor") as recorder:
        done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "say",
                               "BSat1 systems failing.", "--voice", "bsat1"],
                              cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert ear.hear_pcm(recorder.samples()) == "b sat one systems failing"


def test_typed_play_speaks_on_the_device(sink: str, cache_config: str, tmp_path: Path) -> None:
    """`assistant play omega-virus --text --speak`: the lines are printed and really spoken."""
    config = tmp_path / "config.yaml"
    config.write_text(cache_config)
    env = dict(os.environ, PULSE_SINK=sink, ASSISTANT_STATE_DIR=str(tmp_path / "state"))
    with Recorder(f"{sink}.monitor") as recorder:
        done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus",
                               "--text", "--speak", "--clock", "virtual", "--seed", "3", "--new"], input="",
                              cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["BSAT1: Enter skill."]
    ear = PhraseEar.for_phrases(["enter skill", "enter secret code", "which room", "access denied"])
    assert ear.hear_pcm(recorder.samples()) == "enter skill"


def test_private_microphone_hears_what_is_written_into_it(audio: AudioEnv) -> None:
    """The virtual microphone the hands-free tests talk into (tests/audio_env.py).

    A pipe source only produces what is written into it: reading more than was written would
    wait for ever, so the tone is followed by a second of silence and 2.5 s are read.
    """
    import sounddevice

    tone = (0.5 * np.sin(2 * np.pi * 440 * np.arange(32000) / 16000) * 32767).astype(np.int16)
    tone = np.concatenate([tone, np.zeros(16000, np.int16)])
    with private_mic("voice") as fifo:

        def speak() -> None:
            time.sleep(0.3)
            with open(fifo, "wb") as f:
                f.write(tone.tobytes())

        writer = threading.Thread(target=speak)
        writer.start()
        with sounddevice.InputStream(samplerate=16000, channels=1, dtype="int16") as stream:
            heard = np.concatenate([stream.read(1600)[0][:, 0] for _ in range(25)])
        writer.join()
    spectrum = np.abs(np.fft.rfft(heard.astype(np.float64)))
    assert np.fft.rfftfreq(len(heard), 1 / 16000)[np.argmax(spectrum)] == pytest.approx(440, abs=2)
    assert np.count_nonzero(np.abs(heard) > 8000) / 16000 > 1.0


# ---------------------------------------------------------------- the clock stops while speaking


class StatusGame:
    """A countdown that only counts the game time it is given."""

    name: ClassVar[str] = "status"
    speakers: ClassVar[tuple[str, ...]] = ("VIRUS",)

    def __init__(self) -> None:
        self.elapsed = 0.0

    def start(self) -> list[Output]:
        return []

    def handle(self, command: Command) -> list[Output]:
        return [Say("VIRUS", "Status report. Shields are down. Teleport complete. Code 2 0. "
                             "You have 5 minutes left.")]

    def advance(self, seconds: float) -> list[Output]:
        self.elapsed += seconds
        return []

    def allowed_intents(self) -> frozenset[str]:
        return frozenset({"status"})

    def next_event_in(self) -> float | None:
        return None

    def is_over(self) -> bool:
        return False

    def clock_running(self) -> bool:
        return True


def test_game_clock_does_not_run_while_the_assistant_speaks(announcer: SpokenAnnouncer) -> None:
    game = StatusGame()
    sentences = SentenceSet({"intents": {"status": {"sentences": ["status"]}}})
    session = Session("status", types.ModuleType("status_game"), game, sentences, None, announcer, 1, {})
    read_fd, write_fd = os.pipe()
    stream = os.fdopen(read_fd, "r")
    events: dict[str, Any] = {}

    def player() -> None:
        time.sleep(0.5)
        os.write(write_fd, b"status\n")
        while not announcer.speaking.is_speaking():
            time.sleep(0.005)
        while announcer.speaking.is_speaking():
            time.sleep(0.005)
        time.sleep(1.0)
        os.close(write_fd)

    thread = threading.Thread(target=player)
    try:
        start = time.monotonic()
        thread.start()
        textplay.run(session, stream, virtual=False)
        wall = time.monotonic() - start
        thread.join()
    finally:
        stream.close()
    speech = announcer.last.finished_at - announcer.last.called_at
    events.update(wall=wall, speech=speech, game=game.elapsed)
    assert speech > 3.0, events
    # every second of game time is a second nobody was speaking
    assert game.elapsed == pytest.approx(wall - speech, abs=0.35), events
    assert game.elapsed < wall - 0.9 * speech, events
