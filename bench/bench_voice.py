"""Benchmark of the character voices: how fast the assistant answers, and at what cost.

    python bench/bench_voice.py [--config config.yaml] [--null-sink] [--phrases 6]

Prints, in one run:
  - start-up: process start to "ready to speak", and to the first answer, with an empty
    cache (the model must load and synthesize) and with the phrase cached;
  - the first answer of a real game start: `assistant play omega-virus --text --speak`
    launched to "Enter skill." starting to sound (its line is printed as its audio starts),
    with an empty cache (while the game's phrases start rendering in the background) and
    at the next start;
  - time to first audio of cached and uncached phrases (announce() to the first sample
    handed to the device);
  - real-time factor per character (Piper synthesis and effects, seconds per second of speech);
  - intelligibility per character (PocketSphinx with a phrase grammar picks the right phrase);
  - median pitch per character; peak memory (max RSS).

With --null-sink it plays into a PulseAudio null sink (started by tests/audio_env.py);
otherwise into the configured output device. Its cache is a fresh temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PHRASE_POOL = ["Code {a} {b}.", "Explore room {a}{b}{c}.", "{colour} player, enter your code.",
               "You have {n} minutes left.", "{colour} commando destroyed."]
COLOURS = ["Red", "Blue", "Green", "Yellow"]


def phrases(count: int, rng: random.Random) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        template = rng.choice(PHRASE_POOL)
        text = template.format(a=rng.randrange(3), b=rng.randrange(3), c=rng.randrange(3),
                               colour=rng.choice(COLOURS), n=rng.randrange(1, 10))
        if text not in out:
            out.append(text)
    return out


def grammar_phrases() -> list[str]:
    r = range(3)
    return ([f"Code {a} {b}." for a in r for b in r]
            + [f"Explore room {a}{b}{c}." for a in r for b in r for c in r]
            + [f"{c} player, enter your code." for c in COLOURS]
            + [f"You have {n} minutes left." for n in range(1, 10)]
            + [f"{c} commando destroyed." for c in COLOURS])


def load_config(base: str | None, cache: Path):  # type: ignore[no-untyped-def]
    from assistant.config import Config

    config = Config.load(base) if base else Config()
    voice = dict(config.data.get("voice") or {})
    voice["cache_dir"] = str(cache)
    config.data["voice"] = voice
    return config


def first_answer(args: argparse.Namespace) -> int:
    """Child mode: start, say one phrase, report monotonic times as JSON."""
    start = time.monotonic()
    from assistant.engine import Say
    from assistant.voice.announcer import SpokenAnnouncer

    config = load_config(args.config, Path(args.cache))
    announcer = SpokenAnnouncer.from_config(config, echo=False)
    ready = time.monotonic()
    announcer.announce([Say("VIRUS", args.first_answer)])
    print(json.dumps({"start": start, "ready": ready, "first_audio": announcer.last.first_audio_at,
                      "cached": announcer.last.cached, "device": announcer.sink is not None}))
    announcer.close()
    return 0


def child_first_answer(args: argparse.Namespace, cache: Path, text: str) -> dict[str, float]:
    launched = time.monotonic()
    done = subprocess.run([sys.executable, __file__, "--cache", str(cache), "--first-answer", text]
                          + (["--config", args.config] if args.config else []),
                          capture_output=True, text=True, timeout=300, env=dict(os.environ))
    if done.returncode != 0:
        raise SystemExit(f"child run failed: {done.stderr}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    data["launched"] = launched
    return data


def first_line_of_play(args: argparse.Namespace, cache: Path, state: Path) -> float:
    """Seconds from launching a real spoken game to its first line starting to sound."""
    import yaml

    settings = (yaml.safe_load(Path(args.config).read_text(encoding="utf-8")) if args.config else None) or {}
    settings.setdefault("voice", {})["cache_dir"] = str(cache)
    config = state / "bench-play.yaml"
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    launched = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus",
                             "--text", "--speak", "--clock", "virtual", "--new"], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, ASSISTANT_STATE_DIR=str(state)))
    assert proc.stdout is not None and proc.stdin is not None
    line = proc.stdout.readline()
    seconds = time.monotonic() - launched
    proc.stdin.close()
    proc.wait(timeout=120)
    if not line.startswith("BSAT1: "):
        raise SystemExit(f"the game did not start as expected: {line!r}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="settings file (voices, effects, device)")
    parser.add_argument("--null-sink", action="store_true", help="play into a PulseAudio null sink")
    parser.add_argument("--phrases", type=int, default=6, help="phrases per measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    parser.add_argument("--first-answer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.first_answer:
        return first_answer(args)
    if args.null_sink:
        from tests.audio_env import ensure_audio

        ensure_audio()

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="bench-voice-") as folder:
        cache = Path(folder)
        opening = "You cannot escape me. Code 0 1."
        cold = child_first_answer(args, cache, opening)
        warm = child_first_answer(args, cache, opening)
        with tempfile.TemporaryDirectory(prefix="bench-play-") as other:
            play = [first_line_of_play(args, Path(other) / "cache", Path(other)) for _ in range(2)]
        return measure_in_process(args, cache, rng, cold, warm, play)


def measure_in_process(args: argparse.Namespace, cache: Path, rng: random.Random, cold: dict[str, float],
                       warm: dict[str, float], play: list[float]) -> int:
    from assistant.engine import Say
    from assistant.voice.announcer import SpokenAnnouncer
    from assistant.voice.effects import run_chain
    from tests.support.analysis import measure
    from tests.support.check import PhraseEar, spoken_words

    config = load_config(args.config, cache)
    announcer = SpokenAnnouncer.from_config(config, echo=False)
    voices = announcer.voices
    if voices is None:
        print("No voice could be loaded; nothing to measure.", file=sys.stderr)
        return 1
    voices.wait_loaded()
    output = getattr(announcer.sink, "device_name", None) or "none (no device: timings exclude playback)"

    # time to first audio: uncached (synthesized now) and cached
    uncached: list[float] = []
    cached: list[float] = []
    for text in phrases(args.phrases, rng):
        announcer.announce([Say("VIRUS", text)])
        assert announcer.last.cached == [False]
        uncached.append(announcer.last.first_audio_after or float("nan"))
        announcer.announce([Say("VIRUS", text)])
        assert announcer.last.cached == [True]
        cached.append(announcer.last.first_audio_after or float("nan"))
    announcer.close()

    # real-time factor, intelligibility and pitch per character (no playback)
    ear = PhraseEar.for_phrases(grammar_phrases())
    rows = []
    for character, spec in voices.specs.items():
        synth_s = effect_s = audio_s = 0.0
        right = 0
        pitches = []
        texts = phrases(args.phrases, rng)
        for text in texts:
            for sentence in voices.sentences(text):
                t0 = time.perf_counter()
                raw, rate = voices.bank.synthesize(spec, sentence)
                t1 = time.perf_counter()
                audio = run_chain(raw, rate, spec.cached_effects, spec.volume)
                if spec.glitch is not None:
                    audio = spec.glitch.apply_live(audio, rate, 0.0, rng)
                t2 = time.perf_counter()
                synth_s += t1 - t0
                effect_s += t2 - t1
                audio_s += len(audio) / rate
                right += ear.hear(audio, rate) == " ".join(spoken_words(text))
                pitches.append(measure(audio, rate).median_pitch_hz)
        rows.append((character, synth_s / audio_s, effect_s / audio_s, right, len(texts),
                     statistics.median(pitches)))

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ms = 1000.0
    print(f"bench_voice: {os.cpu_count()} CPUs, output {output}, {args.phrases} phrases per figure, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  start-up to ready (new process, models loading in background): "
          f"{cold['ready'] - cold['launched']:.2f} s")
    print(f"  first answer after start, empty cache (load + synthesize):      "
          f"{cold['first_audio'] - cold['launched']:.2f} s")
    print(f"  first answer after start, phrase cached:                        "
          f"{warm['first_audio'] - warm['launched']:.2f} s")
    print(f"  first answer of a real game start (play omega-virus --speak): empty cache {play[0]:.2f} s, "
          f"next start {play[1]:.2f} s")
    print(f"  time to first audio, uncached phrase: median {statistics.median(uncached) * ms:.0f} ms, "
          f"max {max(uncached) * ms:.0f} ms")
    print(f"  time to first audio, cached phrase:   median {statistics.median(cached) * ms:.0f} ms, "
          f"max {max(cached) * ms:.0f} ms")
    for character, synth_rtf, effect_rtf, right, total, pitch in rows:
        print(f"  {character:9s} real-time factor {synth_rtf + effect_rtf:.3f} (Piper {synth_rtf:.3f} + "
              f"effects {effect_rtf:.3f}); understood {right}/{total}; median pitch {pitch:.0f} Hz")
    print(f"  peak memory (max RSS): {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
