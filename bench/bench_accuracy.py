"""Command accuracy of each available recognizer on a generated spoken set.

    python bench/bench_accuracy.py [--game omega-virus] [--quick] [--engines pocketsphinx,vosk]
                                   [--conditions 'clean,white 20 dB'] [-v]

A full run takes about 35 minutes on a 2-core machine (progress goes to stderr).

Commands are sampled (seeded) from the game's own sentence expansion, a few per intent,
and said by every voice of ``assistant.hearing.spoken.SPEAKERS`` (Piper at three speeds
and pitches, espeak-ng in three voices). Each clip is heard clean and with white noise
and babble at 20, 10 and 5 dB SNR. Chatter (table talk that is not a command, some of it
full of numbers and game words) goes through the same conditions and must give no
command. Each command is heard with the grammar of a moment of play where it is asked, as
in play (the recognizer only listens for what the game state allows): the moments are
found by seeded random play through the real session, and a command is decoded under the
largest one that allows it, the hardest for it (chatter under the largest of all). With
--all-intents every clip is heard with every sentence of the game instead (the worst
case). Prints one table per engine; an engine whose model is not installed is listed as
such. Clips are cached under --cache (default: a temp folder).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from assistant.config import Config
from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import HearingSettings, ModelError, Transcript, choose, open_ear
from assistant.hearing.spoken import SPEAKERS, ClipMaker, Speaker, add_noise, babble
from assistant.sentences import SentenceSet
from assistant.session import PrintAnnouncer, Session

CONDITIONS = (("clean", None, None), ("white 20 dB", "white", 20), ("white 10 dB", "white", 10),
              ("white 5 dB", "white", 5), ("babble 20 dB", "babble", 20), ("babble 10 dB", "babble", 10),
              ("babble 5 dB", "babble", 5))

#: Table talk that must give no command (not used to tune the recognizers).
CHATTER = (
    "I would love another slice of pizza",
    "whose turn is it now",
    "can you pass me the dice please",
    "I rolled a one and a two, not bad",
    "that was a really close game",
    "where did the blue piece go",
    "let me think about it for a second",
    "no no no, that is not how it works",
    "ha ha, you should have seen your face",
    "it's getting late, we should finish soon",
    "who took my red card",
    "I need to use the bathroom",
    "okay, my turn, give me a moment",
    "the dog is barking again",
    "did anyone see where the probe went",
    "three four five six seven",
    "that's the second time you did that",
    "shall we order some food",
    "I was sure it was in the green room",
    "wait, what just happened",
)


def sample_commands(sentences: SentenceSet, per_intent: int, seed: int = 7) -> list[tuple[str, Command]]:
    """``per_intent`` spoken sentences of every intent, drawn from its full expansion."""
    rng = random.Random(seed)
    chosen: list[tuple[str, Command]] = []
    for intent in sentences.intents:
        pool = [(t, c) for t, c in sentences.expand([intent]) if not any(ch.isdigit() for ch in t)]
        chosen.extend(rng.sample(pool, min(per_intent, len(pool))))
    return chosen


def listening_moments(game: str, games: int = 30, steps: int = 200, seed: int = 1) -> Counter[frozenset[str]]:
    """How often each set of allowed intents comes up in seeded random play of ``game``."""
    rng = random.Random(seed)
    seen: Counter[frozenset[str]] = Counter()
    pools: dict[str, list[str]] = {}
    for n in range(games):
        session = Session.new(game, seed + n, {}, PrintAnnouncer(lambda line: None), None)
        session.start()
        for _ in range(steps):
            if session.game.is_over():
                break
            allowed = session.allowed_intents()
            seen[allowed] += 1
            if rng.random() < 0.2:
                session.advance(rng.uniform(0.5, 20.0))
                continue
            intent = rng.choice(sorted(allowed))
            if intent not in pools:
                pools[intent] = [text for text, _ in session.sentences.expand([intent], limit=500)]
            if pools[intent]:
                session.hear(rng.choice(pools[intent]))
    return seen


def grammar_for(moments: Counter[frozenset[str]], intent: str | None) -> frozenset[str] | None:
    """The largest moment that allows ``intent`` (of all moments for None); None if none does."""
    fitting = [allowed for allowed in moments if intent is None or intent in allowed]
    return max(fitting, key=lambda allowed: (len(allowed), sorted(allowed))) if fitting else None


def run_engine(engine: str, settings: HearingSettings, sentences: SentenceSet,
               clips: Sequence[tuple[str, str, Speaker, Command | None, np.ndarray]],
               verbose: bool, moments: Counter[frozenset[str]] | None) -> None:
    try:
        ear = open_ear(settings, sentences, engine=engine, fallback=False)  # each engine itself, or none
    except ModelError as error:
        print(f"\n{engine}: not available here ({error})")
        return
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    chatter: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_voice: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    busy = audio = 0.0
    errors: list[str] = []
    for done, (condition, text, speaker, expected, clip) in enumerate(clips):
        if done and done % 200 == 0:
            print(f"{engine}: {done} of {len(clips)} clips", file=sys.stderr, flush=True)
        if moments is not None:
            ear.set_intents(grammar_for(moments, expected.intent if expected else None) or sentences.intents)
        start = time.perf_counter()
        result = ear.hear(clip)
        busy += time.perf_counter() - start
        audio += len(clip) / 16000
        got = result.command if isinstance(result, Transcript) else None
        if expected is None:
            chatter[condition][1] += 1
            chatter[condition][0] += got is None
            if got is not None:
                errors.append(f"  chatter taken  [{condition}; {speaker.label}] {text!r} -> {got.intent} "
                              f"{dict(got.slots)} (heard {result.heard!r})")
        else:
            ok = got == expected
            right[condition][0] += ok
            right[condition][1] += 1
            by_voice[speaker.label][0] += ok
            by_voice[speaker.label][1] += 1
            if not ok:
                errors.append(f"  wrong          [{condition}; {speaker.label}] {text!r} -> "
                              f"{got.intent + ' ' + str(dict(got.slots)) if got else 'nothing'} "
                              f"(heard {result.heard!r})")
    print(f"\n== {engine} ==  ({len(clips)} clips, {audio / 60:.1f} min of audio, "
          f"decoding {busy / max(audio, 1e-9):.2f}x real time)")
    print(f"{'condition':<14} {'commands right':>16} {'chatter refused':>17} {'chatter taken':>14}")
    total = [0, 0]
    taken = [0, 0]
    for name, _, _ in CONDITIONS:
        if name not in right and name not in chatter:
            continue
        r, c = right[name], chatter[name]
        total = [total[0] + r[0], total[1] + r[1]]
        taken = [taken[0] + (c[1] - c[0]), taken[1] + c[1]]
        print(f"{name:<14} {r[0]:>5}/{r[1]:<4} {pct(r):>6} {c[0]:>6}/{c[1]:<4} {pct(c):>6} {c[1] - c[0]:>10}")
    print(f"{'overall':<14} {total[0]:>5}/{total[1]:<4} {pct(total):>6} "
          f"{taken[1] - taken[0]:>6}/{taken[1]:<4} {pct([taken[1] - taken[0], taken[1]]):>6} {taken[0]:>10}")
    print("commands right by voice (all conditions):")
    for label, r in by_voice.items():
        print(f"  {label:<28} {r[0]:>4}/{r[1]:<4} {pct(r):>6}")
    if verbose:
        print("errors:")
        print("\n".join(errors) or "  none")


def pct(pair: Sequence[int]) -> str:
    return f"{100.0 * pair[0] / pair[1]:.1f}%" if pair[1] else "-"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="omega-virus")
    parser.add_argument("--engines", default="pocketsphinx,vosk", help="comma-separated")
    parser.add_argument("--per-intent", type=int, default=2, help="sentences per intent")
    parser.add_argument("--quick", action="store_true", help="1 sentence per intent, 3 voices, 5 chatter lines")
    parser.add_argument("--conditions", help="comma-separated condition names to run (default: all), e.g. "
                        "'clean,white 20 dB'; for quick comparisons while tuning")
    parser.add_argument("--cache", type=Path, help="clip cache folder (default: a temp folder)")
    parser.add_argument("--config", help="settings file (default: ./config.yaml)")
    parser.add_argument("--all-intents", action="store_true",
                        help="hear every clip with every sentence of the game (not the moment's grammar)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every error")
    args = parser.parse_args(argv)
    config = Config.load(args.config)
    settings = HearingSettings.from_config(config)
    sentences = game_module(args.game).sentences()
    speakers = SPEAKERS[::2] if args.quick else SPEAKERS
    commands = sample_commands(sentences, 1 if args.quick else args.per_intent)
    chatter_lines = CHATTER[:5] if args.quick else CHATTER
    conditions = CONDITIONS
    if args.conditions:
        wanted = [c.strip() for c in args.conditions.split(",")]
        unknown = [c for c in wanted if c not in {name for name, _, _ in CONDITIONS}]
        if unknown:
            parser.error(f"unknown condition {unknown[0]!r}; known: {', '.join(n for n, _, _ in CONDITIONS)}")
        conditions = tuple(c for c in CONDITIONS if c[0] in wanted)
    with tempfile.TemporaryDirectory() as tmp:
        maker = ClipMaker(args.cache or Path(tmp))
        noise = babble(maker)
        clips: list[tuple[str, str, Speaker, Command | None, np.ndarray]] = []
        items: list[tuple[str, Command | None]] = [*commands, *((t, None) for t in chatter_lines)]
        for n, (text, expected) in enumerate(items):
            for speaker in speakers:
                clean = maker.say(text, speaker)
                for name, kind, snr in conditions:
                    clip = clean if kind is None else add_noise(clean, kind, float(snr or 0), noise, seed=n)
                    clips.append((name, text, speaker, expected, clip))
        moments = None if args.all_intents else listening_moments(args.game)
        print(f"{args.game}: {len(commands)} commands and {len(chatter_lines)} chatter lines, "
              f"{len(speakers)} voices, {len(conditions)} conditions. auto picks: {choose(settings).note}")
        if moments is None:
            print(f"grammar: all {len(sentences.intents)} intents")
        else:
            print("grammar: the moment of play where the command is asked (intents listened for):")
            for intent in [*sentences.intents, None]:
                allowed = grammar_for(moments, intent)
                listened = " ".join(sorted(allowed)) if allowed else "all (never asked in random play)"
                print(f"  {intent or 'chatter':<12} {listened}")
        for engine in args.engines.split(","):
            run_engine(engine.strip(), settings, sentences, clips, args.verbose, moments)
    return 0


if __name__ == "__main__":
    sys.exit(main())
