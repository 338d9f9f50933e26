"""A study for issue 61 (hearing that learns the table's voices): can remembered, confirmed takes
tell a player's button words apart? Not a benchmark of hearing: the matchers of
``assistant/hearing/learning.py`` alone, on real people's recordings (FSDD, bench/voices.py).

    PYTHONPATH=. .venv/bin/python bench/learning_study.py [--tests 40] [--snr DB] [--out FILE]

Per speaker and session a sequence of utterances is made from the speaker's takes of zero, one
and two (the takes of the first ``max(K)`` utterances, the confirmed ones, from takes 0-24; the
tested ones from takes 25-49, so no tested take was ever remembered), joined by 0.15-0.35 s
pauses as ``BenchClips.entry`` joins them, and cut to their loud part as Whisper's look cuts them:

- ``words``: one word each (allowed: zero, one, two; the prologue's buttons);
- ``entries``: button entries of Omega Virus (allowed: its 120 entries of 1-4 words), drawn
  with repeats from the 48 ``bench_accuracy`` says (``sample_entries``).

The first K (5, 10, 20) are remembered with their true sentence; each of the next ``--tests`` is
decided by the whole-utterance matcher and by the word matcher. A decision is taken when its
relative margin over the nearest other sentence is at least a threshold chosen on the tuning
speakers alone (the smallest giving at most 2 % wrong among taken); the held-out speakers are
reported with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.games import game_module  # noqa: E402
from assistant.hearing.audio import RATE, Int16, as_int16, loud_part  # noqa: E402
from assistant.hearing.learning import (  # noqa: E402
    Frames,
    TakeMemory,
    WholeMatcher,
    WordMatcher,
    features_of_mel,
    log_mel_frames,
)
from bench.bench_accuracy import sample_entries  # noqa: E402
from bench.voices import DIGITS, FSDD_HELD_OUT, FSDD_TUNING, BenchClips, is_digit_entry  # noqa: E402
from tests.support.spoken import PAD_S  # noqa: E402

KS = (5, 10, 20)
#: Takes the confirmed utterances are made of; the tested ones use the others
REMEMBERED_TAKES = range(0, 25)
TESTED_TAKES = range(25, 50)
#: Whisper's look: 12 dB below the loudest, 0.2 s more each side
TRIM_DB, TRIM_MARGIN_S = 12.0, 0.2
WRONG_AT_MOST = 0.02


@dataclass
class Row:
    speaker: str
    session: str
    k: int
    matcher: str
    truth: str
    chosen: str | None
    margin: float
    distance: float
    cpu_s: float
    remembered: bool  # the true sentence was among the remembered (whole) / all its words have templates (word)


def seed_of(*parts: object) -> int:
    return int.from_bytes(hashlib.sha1("|".join(map(str, parts)).encode()).digest()[:4], "big")


def say(maker: BenchClips, name: str, text: str, pool: range, rng: random.Random, snr_db: float | None) -> Int16:
    """``text`` as ``name``'s takes from ``pool`` with 0.15-0.35 s pauses (as ``BenchClips.entry``)."""
    parts = [np.zeros(int(PAD_S * RATE))]
    used: set[tuple[int, int]] = set()
    for n, word in enumerate(text.split()):
        digit = DIGITS[word]
        take = rng.choice(pool)
        while (digit, take) in used:
            take = rng.choice(pool)
        used.add((digit, take))
        if n:
            parts.append(np.zeros(int(rng.uniform(0.15, 0.35) * RATE)))
        parts.append(maker._take(name, digit, take))
    parts.append(np.zeros(int(PAD_S * RATE)))
    audio = np.concatenate(parts)
    if snr_db is not None:  # white noise at that ratio to the speech's power (takes are at RMS 3000)
        audio = audio + np.random.default_rng(rng.randrange(2**32)).normal(0, 3000.0 / 10 ** (snr_db / 20), len(audio))
    return loud_part(as_int16(audio), TRIM_DB, TRIM_MARGIN_S)


def sessions() -> dict[str, tuple[list[str], list[str]]]:
    """Each session's allowed sentences and the sentences said in it (before any K is cut)."""
    entries = sorted({t for t, _ in game_module("omega-virus").sentences().expand(limit=100000) if is_digit_entry(t)})
    said = [t for t, _ in sample_entries(game_module("omega-virus").sentences(), 48)]
    return {"words": (["zero", "one", "two"], ["zero", "one", "two"]), "entries": (entries, said)}


def run_speaker(maker: BenchClips, name: str, tests: int, snr_db: float | None, kind: str,
                nearest: int) -> tuple[list[Row], dict[str, float]]:
    rows: list[Row] = []
    sizes: dict[str, float] = {}
    for session, (allowed, pool) in sessions().items():
        rng = random.Random(seed_of(session, "sentences"))  # the same sentences for every speaker
        sentences = [rng.choice(pool) for _ in range(max(KS) + tests)]
        audio_rng = random.Random(seed_of(session, name))
        clips = [say(maker, name, s, REMEMBERED_TAKES if n < max(KS) else TESTED_TAKES, audio_rng, snr_db)
                 for n, s in enumerate(sentences)]
        mels = [log_mel_frames(c) for c in clips]
        feats: list[Frames] = [features_of_mel(m, kind) for m in mels]
        for k in KS:
            whole = WholeMatcher(TakeMemory(per_sentence=10, total=200), nearest=nearest)
            words = WordMatcher(per_word=10, kind=kind)
            cut = 0
            for n in range(k):
                whole.remember(feats[n], sentences[n])
                cut += words.remember(mels[n], sentences[n])
            sizes[f"{session} K={k} whole bytes"] = whole.memory.nbytes()
            sizes[f"{session} K={k} word bytes"] = words.nbytes()
            sizes[f"{session} K={k} entries cut"] = cut / k
            for n in range(max(KS), max(KS) + tests):
                truth = sentences[n]
                for label, matcher in (("whole", whole), ("word", words)):
                    started = time.process_time()
                    decision = matcher.decide(feats[n], allowed)
                    cpu = time.process_time() - started
                    known = (truth in whole.memory.sentences() if label == "whole"
                             else all(w in words.templates for w in truth.split()))
                    rows.append(Row(name, session, k, label, truth, decision.sentence if decision.other else None,
                                    decision.margin, decision.distance, cpu, known))
    return rows, sizes


Rule = tuple[float, float]  # (least margin, greatest distance)


def outcome(row: Row, rule: Rule) -> str:
    if row.chosen is None or row.margin < rule[0] or row.distance > rule[1]:
        return "abstain"
    return "right" if row.chosen == row.truth else "wrong"


def choose_rule(rows: Sequence[Row], use_distance: bool) -> Rule:
    """The rule taking the most of ``rows`` right with at most ``WRONG_AT_MOST`` of the taken wrong
    (ties: the larger margin): a least margin, and with ``use_distance`` a greatest distance too."""
    margins = np.array([r.margin for r in rows])
    distances = np.array([r.distance for r in rows])
    right = np.array([r.chosen == r.truth for r in rows])
    chosen = np.array([r.chosen is not None for r in rows])
    margin_grid = sorted({0.0, *np.quantile(margins, np.linspace(0, 1, 101)).tolist()})
    finite = distances[np.isfinite(distances)]
    distance_grid = (sorted({float("inf"), *np.quantile(finite, np.linspace(0, 1, 41)).tolist()})
                     if use_distance and len(finite) else [float("inf")])
    best: tuple[int, float, Rule] = (-1, 0.0, (float("inf"), float("inf")))
    for m in margin_grid:
        for d in distance_grid:
            taken = chosen & (margins >= m) & (distances <= d)
            good = int((taken & right).sum())
            if (taken & ~right).sum() <= WRONG_AT_MOST * max(int(taken.sum()), 1) and (good, m) > best[:2]:
                best = (good, m, (m, d))
    return best[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", type=int, default=40, help="utterances decided per speaker, session and K")
    parser.add_argument("--snr", type=float, default=None, help="white noise at this SNR (dB); default none")
    parser.add_argument("--speakers", default=",".join((*FSDD_TUNING, *FSDD_HELD_OUT)))
    parser.add_argument("--kind", default="cepstra", help="features: cepstra or logmel")
    parser.add_argument("--nearest", type=int, default=1, help="whole: a sentence's distance, its N nearest takes'")
    parser.add_argument("--distance", action="store_true", help="the rule may also bound the distance")
    parser.add_argument("--out", type=Path, default=None, help="the rows as JSON")
    args = parser.parse_args()
    maker = BenchClips()
    rows: list[Row] = []
    for name in args.speakers.split(","):
        started = time.monotonic()
        speaker_rows, sizes = run_speaker(maker, name, args.tests, args.snr, args.kind, args.nearest)
        rows.extend(speaker_rows)
        cut = ", ".join(f"{k.split(' entries')[0]} {v:.0%}" for k, v in sizes.items() if k.endswith("cut"))
        largest = max(v for k, v in sizes.items() if k.endswith("bytes"))
        print(f"{name}: {len(speaker_rows)} decisions in {time.monotonic() - started:.0f} s; entries cut at "
              f"pauses into their words: {cut}; largest memory {largest / 1024:.0f} KiB", flush=True)
    print(f"\nrule: the least relative margin{' and greatest distance' if args.distance else ''} taking the most "
          f"right with <= {WRONG_AT_MOST:.0%} wrong among taken on {', '.join(FSDD_TUNING)} (snr {args.snr}, "
          f"{args.kind}, nearest {args.nearest})")
    print("session  matcher K  | margin dist | tuning right/wrong/abstain | held-out per speaker right/wrong/abstain"
          " | held-out total | truth known")
    for session in ("words", "entries"):
        for label in ("whole", "word"):
            for k in KS:
                mine = [r for r in rows if r.session == session and r.matcher == label and r.k == k]
                tuning = [r for r in mine if r.speaker in FSDD_TUNING]
                held = [r for r in mine if r.speaker in FSDD_HELD_OUT]
                t = choose_rule(tuning, args.distance)

                def counts(some: Sequence[Row], t: Rule = t) -> str:
                    o = [outcome(r, t) for r in some]
                    return f"{o.count('right')}/{o.count('wrong')}/{o.count('abstain')}"

                per = " ".join(f"{s[:6]} {counts([r for r in held if r.speaker == s]):>8}" for s in FSDD_HELD_OUT)
                known = sum(r.remembered for r in held) / max(len(held), 1)
                print(f"{session:8} {label:5} {k:2} | {t[0]:5.3f} {t[1]:5.1f} | {counts(tuning):>11} | {per} | "
                      f"{counts(held):>9} | {known:.0%}")
    print("\nCPU seconds per decision (time.process_time), median / p90 / max:")
    for session in ("words", "entries"):
        for label in ("whole", "word"):
            for k in KS:
                cpu = np.array([r.cpu_s for r in rows if r.session == session and r.matcher == label and r.k == k])
                print(f"  {session:8} {label:5} K={k:2}: {np.median(cpu):.4f} / {np.percentile(cpu, 90):.4f} / "
                      f"{cpu.max():.4f}")
    if args.out:
        args.out.write_text(json.dumps([asdict(r) for r in rows]))


if __name__ == "__main__":
    main()
