"""Latency of the live loop through the PulseAudio virtual microphone and speaker.

    python -m bench.bench_latency [--trials 12]

Speaks "explore one zero zero" (the Piper voice) into the virtual microphone again and
again, and measures from the end of the player's speech to the first sample of the answer
handed to the speaker: once answering early (acting on a steady partial that is a whole
command) and once waiting for the recognizer's end-of-speech silence. Prints the median
and the 90th percentile of each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.config import Config  # noqa: E402
from assistant.games import omega_virus  # noqa: E402
from assistant.hearing import HearingSettings, open_ear  # noqa: E402
from assistant.live.loop import LiveLoop, LiveSettings  # noqa: E402
from assistant.live.microphone import Microphone  # noqa: E402
from assistant.session import Session  # noqa: E402
from assistant.voice.announcer import SpokenAnnouncer  # noqa: E402
from tests.audio_env import RATE, private_mic  # noqa: E402
from tests.test_live_e2e import MicFeeder, piper_clip  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def measure(trials: int, warm_up: int = 4) -> dict[bool, list[float]]:
    """One session and one speaker for both modes, alternating trial by trial (a fair pairing)."""
    with private_mic("latency") as mic:
        return _measure(mic, trials, warm_up)


def _measure(mic: Path, trials: int, warm_up: int) -> dict[bool, list[float]]:
    config = Config.from_text("voice:\n  render_at_start: false\n")
    settings = omega_virus.settings_from_config(config)
    settings.update(hazard_chance=0.0, attack_shot="random")
    announcer = SpokenAnnouncer.from_config(config, echo=False, game="omega-virus", settings=settings)
    session = Session.new("omega-virus", 1, settings, announcer, None)
    session.start()
    for line in ["skill zero", "code one two", "skip", "skip", "skip"]:
        session.hear(line)
    ear = open_ear(HearingSettings.from_config(config), session.sentences, session.allowed_intents(),
                   "pocketsphinx")
    loop = LiveLoop(session, ear, Microphone(""), announcer.speaking, None, LiveSettings())
    stop = threading.Event()
    worker = threading.Thread(target=loop.run, args=(stop,), daemon=True)
    feeder = MicFeeder(mic)
    feeder.thread.start()
    worker.start()
    clips = [piper_clip(f"explore {room}") for room in ("one zero zero", "one two zero")]
    speech_end = [int(np.nonzero(np.abs(c.astype(np.int32)) > 500)[0][-1]) / RATE for c in clips]
    time.sleep(3)
    results: dict[bool, list[float]] = {True: [], False: []}
    try:
        for i in range(warm_up + 2 * trials):
            early = i % 2 == 0
            loop.settings.answer_early = early
            while announcer.speaking.is_speaking() or announcer.speaking.quiet_for() < 1.0:
                time.sleep(0.05)
            time.sleep(0.5)
            before = announcer.last.called_at
            k = (i // 2) % 2
            ended = feeder.say_at(clips[k]) + speech_end[k]
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                first = announcer.last.first_audio_at
                if announcer.last.called_at > before and first is not None:
                    if i >= warm_up:  # the first answers fill the voice cache
                        results[early].append(first - ended)
                    break
                time.sleep(0.005)
    finally:
        stop.set()
        feeder.stop.set()
        # PortAudio streams must not be closed from two threads at once: let the loop finish
        # its last answer and close the microphone before the speaker is closed here.
        worker.join()
        announcer.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=12)
    args = parser.parse_args()
    print("End of the player's speech to the first sample of the answer (PulseAudio virtual devices,")
    print(f"PocketSphinx, 'explore one zero zero' spoken by Piper; {args.trials} trials each):")
    results = measure(args.trials)
    for early in (True, False):
        values = results[early]
        label = "answering early    " if early else "waiting for silence"
        if not values:
            print(f"  {label}  no answers")
            continue
        print(f"  {label}  median {statistics.median(values):.3f} s   90th percentile "
              f"{percentile(values, 90):.3f} s   ({len(values)} answers)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
