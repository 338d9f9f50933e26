"""How the hybrid's Whisper thresholds trade commands heard against table talk taken.

    .venv/bin/python bench/veto_study.py --voices tuning --out /tmp/veto-tuning.jsonl [--bare]
        [--conditions clean "white 20 dB" "white 10 dB" "babble 20 dB" "babble 10 dB" reverb "reverb+babble 10"]
    .venv/bin/python bench/veto_study.py --simulate /tmp/veto-tuning.jsonl
    .venv/bin/python bench/veto_study.py --respot /tmp/veto-tuning.jsonl --out /tmp/respot.jsonl
    .venv/bin/python bench/veto_study.py --restyle /tmp/veto-tuning.jsonl --voices tuning --out /tmp/styled.jsonl
    .venv/bin/python bench/veto_study.py --rehear /tmp/veto-tuning.jsonl --voices tuning --intents start_listening \
        --out /tmp/reheard.jsonl
    .venv/bin/python bench/veto_study.py --table /tmp/veto-tuning.jsonl /tmp/veto-held-out.jsonl

The first form hears bench_accuracy's clips (``--per-intent 1 --talk-voices 1``: every intent
of every game and 64 table-talk lines) said by one voice set (tuning or held-out) in the
``--conditions`` (default: clean, white noise 20 dB, babble 20 dB, reverberant), once, and
records what the hybrid's decision is made of: the streaming first pass's command and its
words, Whisper's three best transcripts, what is spotted in each, the distances the decision
compares, Whisper's score of the commands nearest them, and (``--bare``) Whisper's transcripts
of the same audio without the prompt, and its transcript under the last try's prompt (each
example a sentence: ``--restyle`` adds it to a record made without it). The clips are heard in
a fixed shuffled order, so a record cut short is a fair sample, and running the same command
again takes it up where it stopped. The second form replays the hybrid's decision
(``Ear.decide``) on those records for a grid of its thresholds: ``confirm_distance`` and
``runner_up_distance``, then Whisper's score weighing (``score_within``, ``score_margin``,
``first_within``) with and without the unprompted transcript and the last try, printing
commands right, wrong and table talk taken: thresholds are chosen on the tuning voices and read
off on the held-out ones. ``--table`` prints both voice sets' records per condition, as
bench_accuracy does (a replay of the decision on recorded inputs: Whisper heard each whole
clip, where bench_accuracy's hybrid hears the utterance the first pass's endpointer cut). All
seven conditions with ``--bare`` take about 50 minutes per voice set on this 2-core machine
(two sets at once).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.engine import Command  # noqa: E402
from assistant.games import GAMES, game_module  # noqa: E402
from assistant.hearing import HearingSettings, NotRecognized, Transcript, open_ear  # noqa: E402
from assistant.hearing.recognizer import prompt_as_sentences, written  # noqa: E402
from assistant.hearing.whisper_engine import (  # noqa: E402
    DEFAULT_WHISPER_MODEL,
    KNOWN_MODELS,
    WhisperSettings,
    model_score_distance,
)
from assistant.sentences import SentenceSet  # noqa: E402
from bench.bench_accuracy import (  # noqa: E402
    CONDITIONS,
    TABLE_TALK,
    checked_table_talk,
    grammar_for,
    listening_moments,
    make_clip,
    sample_commands,
    table_talk_games,
    voices_for,
)
from tests.support.spoken import TUNING_SPEAKERS, ClipMaker, babble  # noqa: E402

TINY_SCORE_DISTANCE = model_score_distance(DEFAULT_WHISPER_MODEL)
STUDY_CONDITIONS = ("clean", "white 20 dB", "babble 20 dB", "reverb")
CONFIRM = (0.3, 0.4, 0.5, 0.6)
RUNNER_UP = (0.4, 0.6, 0.8)
#: the commands nearest each transcript a record scores (its "cands" carry their rank, so
#: score_nearest up to this is replayed)
NEAREST = 6
SCORE_NEAREST = (1, 2, 3, 4, 5, 6)
SCORE_WITHIN = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
SCORE_MARGIN = (2.0, 3.0, 4.0)
SCORE_DISTANCE = (0.6, 0.8, 0.9, 1.0, 1.2, 1.5, 2.0, 5.0)
FIRST_WITHIN = (0.0, 6.0, 8.0, 10.0, 12.0, 14.0)
AS_SENTENCES_WITHIN = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 20.0, 1000.0)


Clip = tuple[str, Any, str, Any, Any, int]  # game, condition, text, speaker, expected command, noise seed


def study_clips(voices: str, study: Sequence[str], games: dict[str, SentenceSet]) -> list[Clip]:
    """bench_accuracy's half-size clips (``--per-intent 1 --talk-voices 1``) of one voice set in
    the ``study`` conditions, in a fixed shuffled order: any first part is a fair sample of every
    kind of clip."""
    names = list(games)
    conditions = [c for c in CONDITIONS if c.name in study]
    tuning = set(TUNING_SPEAKERS)
    items = [(name, text, command) for name, sentences in games.items()
             for text, command in sample_commands(sentences, 1)]
    talk = checked_table_talk(games, TABLE_TALK)
    clips: list[Clip] = []
    for n, (game, text, expected) in enumerate(items):
        for speaker in voices_for(n, 1):
            if (speaker in tuning) == (voices == "tuning"):
                clips += [(game, c, text, speaker, expected, n * 31 + k) for k, c in enumerate(CONDITIONS)
                          if c in conditions]
    for line, (text, tag) in enumerate(talk):
        n = len(items) + line
        for v, speaker in enumerate(voices_for(n, 1)):
            if (speaker in tuning) == (voices == "tuning"):
                clips += [(table_talk_games(line, tag, names, v), c, text, speaker, None, n * 31 + k)
                          for k, c in enumerate(CONDITIONS) if c in conditions]
    random.Random(0).shuffle(clips)
    return clips


def study_ears(model: str = DEFAULT_WHISPER_MODEL, threads: int = 0, suppression: int | None = None) -> tuple[
        dict[str, SentenceSet], dict[str, Any], dict[str, Any]]:
    """Every game's sentences, its listening moments and a hybrid Ear of its own (Whisper
    ``model`` on ``threads`` CPU threads, 0: all; hearing through noise ``suppression`` 0-4,
    None: the default)."""
    games = {name: game_module(name).sentences() for name in GAMES}
    moments = {name: listening_moments(name) for name in games}
    if suppression is None:
        suppression = WhisperSettings().noise_suppression
    settings = HearingSettings(recognizer="hybrid", whisper=WhisperSettings(
        model=model, threads=threads, noise_suppression=suppression))
    ears = {name: open_ear(settings, games[name], engine="hybrid", fallback=False) for name in games}
    return games, moments, ears


def default_how(d: HearingSettings, unprompted: bool = True) -> dict[str, Any]:
    """``decide``'s arguments for the settings ``d`` (``unprompted``: when the record has it)."""
    return {"confirm": d.confirm_distance, "runner_up": d.runner_up_distance,
            "score": (d.score_within, d.score_margin), "first_within": d.first_within,
            "distance": d.weigh_distance, "nearest": d.score_nearest, "unprompted": d.unprompted and unprompted,
            "as_sentences": d.as_sentences_within if d.as_sentences else None}


def record(voices: str, out: Path, cache: Path, study: Sequence[str] = STUDY_CONDITIONS,
           bare_decode: bool = False, model: str = DEFAULT_WHISPER_MODEL, threads: int = 0,
           suppression: int | None = None) -> None:
    games, moments, ears = study_ears(model, threads, suppression)
    maker = ClipMaker(cache)
    noise = babble(maker)
    clips = study_clips(voices, study, games)
    # a record cut short is taken up where it stopped
    done = len(out.read_text().splitlines()) if out.exists() else 0
    with out.open("a") as f:
        for i, clip in enumerate(clips):
            if i < done:
                continue
            game, expected = clip[0], clip[4]
            grammar = grammar_for(moments[game], expected.intent if expected else None) or games[game].intents
            f.write(json.dumps(hear_clip(ears[game], grammar, maker, noise, clip, bare_decode)) + "\n")
            f.flush()
            if i % 100 == 0:
                print(f"{i} of {len(clips)} clips", file=sys.stderr, flush=True)


def hear_clip(ear: Any, grammar: Any, maker: ClipMaker, noise: Any, clip: Clip, bare_decode: bool) -> dict[str, Any]:
    """One clip heard as the record keeps it: the first pass alone, then Whisper on the same
    audio (see the module's docstring), with ``grammar`` (the intents listened for)."""
    game, condition, text, speaker, expected, seed = clip
    second = ear.second
    assert second is not None and ear.spotter is not None
    ear.set_intents(grammar)
    audio = make_clip(maker, text, speaker, condition, noise, seed)
    ear.second = None  # the first pass alone, then Whisper on the same audio
    first = ear.hear(audio)
    ear.second = second
    texts = second.transcriber.hypotheses(audio.tobytes(), ear._prompt(), 3) or [""]
    spots = [ear.spot(t) for t in texts]
    command = first.command if isinstance(first, Transcript) else None
    found = [s.command if isinstance(s, Transcript) else None for s in spots]
    # Whisper's own score of the nearest commands (second.transcriber kept the audio's encoding)
    near: dict[Any, Any] = {command: None} if command is not None else {}
    source: dict[Any, str] = {command: "first"} if command is not None else {}
    rank: dict[Any, int | None] = {command: None} if command is not None else {}
    for t in texts:
        for n, close in enumerate(second.spotter.nearest(t, ear.graph.intents, NEAREST)):
            if close.command is not None and close.command not in near:
                near[close.command] = close
                source[close.command] = "whisper"
            if close.command is not None and source[close.command] == "whisper":
                rank[close.command] = min(n, rank.get(close.command, n))
    # the first pass's own words, even when it doubted or refused them
    heard = first.heard if isinstance(first, NotRecognized) else first.heard or first.text
    for n, close in enumerate(second.spotter.nearest(heard, ear.graph.intents, NEAREST) if heard else []):
        if close.command is not None and close.command not in near:
            near[close.command] = close
            source[close.command] = "heard"
            rank[close.command] = n
    first_text = first.text if isinstance(first, Transcript) else ""
    sentences = [close.sentence if close is not None else first_text for close in near.values()]
    scores = second.transcriber.score([texts[0]], ending=False) + second.transcriber.score(
        [written(x) for x in sentences])
    styled = styled_transcript(ear, None)  # on the kept encoding, scored under the first prompt
    # Whisper again without the prompt (last: it replaces the kept encoding's prompt)
    bare = (second.transcriber.hypotheses(audio.tobytes(), "", 3) or [""]) if bare_decode else []
    bare_spots = [ear.spot(t) for t in bare]
    return {
        "game": game, "condition": condition.name, "voice": speaker.label, "text": text,
        "expected": [expected.intent, dict(expected.slots)] if expected else None,
        "first": [command.intent, dict(command.slots)] if command else None,
        "texts": texts, "words": bool(ear.sentences.words(texts[0])),
        "spots": [[c.intent, dict(c.slots)] if c else None for c in found],
        "first_distances": [second.spotter.distance(t, command) for t in texts] if command else None,
        "spot_distances": [second.spotter.distance(texts[0], c) if c else None for c in found],
        "free_score": scores[0],
        "cands": [[c.intent, dict(c.slots), x, close.distance if close is not None else None, sc,
                   source[c], rank[c]]
                  for (c, close), x, sc in zip(near.items(), sentences, scores[1:], strict=True)],
        "heard": heard, "bare": bare,
        "bare_spots": [[s.command.intent, dict(s.command.slots)]
                       if isinstance(s, Transcript) and s.command else None for s in bare_spots],
        **styled,
    }


def styled_transcript(ear: Any, audio: bytes | None) -> dict[str, Any]:
    """Whisper's transcript under the last try's prompt (each example a sentence:
    Ear._as_sentences), the command spotted in it, and Whisper's score of that command as the
    whole transcript under the first prompt, as in play: a record's "styled", "styled_spot" and
    "styled_score"."""
    second = ear.second
    if audio is not None:  # None: the transcriber holds the audio's encoding under the first prompt already
        second.transcriber.hypotheses(audio, ear._prompt(), 1)
    texts = second.transcriber.again(prompt_as_sentences(ear.sentences.help_for(ear.graph.intents)), 1)
    spotted = ear.spot(texts[0]) if texts else None
    command = spotted.command if isinstance(spotted, Transcript) else None
    score = (second.transcriber.score([written(spotted.text)])[0]
             if isinstance(spotted, Transcript) and command is not None else None)
    return {"styled": texts, "styled_spot": [command.intent, dict(command.slots)] if command else None,
            "styled_score": score}


def recorded_clips(voices: str, records: Path, games: dict[str, SentenceSet]) -> list[tuple[Clip, dict[str, Any]]]:
    """Each row of ``records`` (made by this study for ``voices``) beside the clip it records,
    checked to be that clip."""
    rows = read_records(records)
    clips = study_clips(voices, list(dict.fromkeys(r["condition"] for r in rows)), games)
    for i, ((_, condition, text, speaker, _, _), row) in enumerate(zip(clips, rows, strict=False)):
        if clip_of(row) != (text, speaker.label, condition.name):
            raise SystemExit(f"{records} line {i + 1} is not clip {i + 1} of the {voices} voices' study")
    return list(zip(clips, rows, strict=False))


def restyle(voices: str, records: Path, out: Path, cache: Path, model: str = DEFAULT_WHISPER_MODEL) -> None:
    """``records`` (made by an earlier version of this study) into ``out`` with Whisper's
    last-try transcript added ("styled", "styled_spot", "styled_score") to every clip whose prompted transcript
    spots nothing (the others never come to the last try): those clips are heard again (by
    Whisper ``model``, which must be the one the records were made with)."""
    games, moments, ears = study_ears(model)
    pairs = recorded_clips(voices, records, games)
    maker = ClipMaker(cache)
    noise = babble(maker)
    done = len(out.read_text().splitlines()) if out.exists() else 0
    with out.open("a") as f:
        for i, ((game, condition, text, speaker, expected, seed), row) in enumerate(pairs):
            if i < done:
                continue
            row.update({"styled": None, "styled_spot": None, "styled_score": None})
            if not row["spots"][0]:
                ear = ears[game]
                ear.set_intents(grammar_for(moments[game], expected.intent if expected else None)
                                or games[game].intents)
                row.update(styled_transcript(ear, make_clip(maker, text, speaker, condition, noise, seed).tobytes()))
            f.write(json.dumps(row) + "\n")
            f.flush()
            if i % 100 == 0:
                print(f"{i} of {len(pairs)} clips", file=sys.stderr, flush=True)


def rehear(voices: str, records: Path, intents: Sequence[str], out: Path, cache: Path,
           model: str = DEFAULT_WHISPER_MODEL, threads: int = 0, suppression: int | None = None) -> None:
    """``records`` into ``out`` with the clips of commands of ``intents`` heard again (by Whisper
    ``model``, the one the records were made with) with the listening moments as they are now,
    the others copied: a change to the moment a command is asked in (its grammar and Whisper's
    prompt) is weighed on those clips alone."""
    games, moments, ears = study_ears(model, threads, suppression)
    pairs = recorded_clips(voices, records, games)
    maker = ClipMaker(cache)
    noise = babble(maker)
    heard = 0
    with out.open("w") as f:
        for clip, row in pairs:
            game, expected = clip[0], clip[4]
            if expected is not None and expected.intent in intents:
                grammar = grammar_for(moments[game], expected.intent) or games[game].intents
                row = hear_clip(ears[game], grammar, maker, noise, clip, bool(row.get("bare")))
                heard += 1
            f.write(json.dumps(row) + "\n")
    print(f"{heard} of {len(pairs)} clips heard again", file=sys.stderr)


def respot(records: Path, out: Path) -> None:
    """Spot again the transcripts recorded in ``records`` with the spotting code as it is now
    (same clips, grammars and first pass), into ``out``: a change to spotting is weighed without
    hearing every clip again."""
    games, moments, ears = study_ears()
    with out.open("w") as f:
        for line in records.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            ear = ears[row["game"]]
            second = ear.second
            assert second is not None
            expected = row["expected"]
            ear.set_intents(grammar_for(moments[row["game"]], expected[0] if expected else None)
                            or games[row["game"]].intents)
            texts = row["texts"]
            found = [s.command if isinstance(s, Transcript) else None for s in (ear.spot(t) for t in texts)]
            command = Command(row["first"][0], row["first"][1]) if row["first"] else None
            row.update({
                "words": bool(ear.sentences.words(texts[0])),
                "spots": [[c.intent, dict(c.slots)] if c else None for c in found],
                "first_distances": [second.spotter.distance(t, command) for t in texts] if command else None,
                "spot_distances": [second.spotter.distance(texts[0], c) if c else None for c in found],
            })
            f.write(json.dumps(row) + "\n")


def weigh(row: dict[str, Any], within: float, margin: float, distance: float = TINY_SCORE_DISTANCE,
          first_within: float | None = None, nearest: int = 3) -> Any:
    """Ear._weigh's outcome for a recorded clip (needs a record with "cands"): ``first_within``
    is the wider score_within for the first pass's own command (None: the same); ``nearest``
    (score_nearest) counts only in records that carry the candidates' ranks, made with
    ``NEAREST`` per transcript (older ones hold the 3 nearest)."""
    if not row["words"]:
        return None
    cands = sorted((c for c in row["cands"] if (c[3] is None or c[3] <= distance) and c[4] > -math.inf
                    and (len(c) < 7 or c[6] is None or c[6] < nearest)
                    and (len(c) < 6 or c[5] in ("first", "whisper"))),  # as Ear._weigh: not the "heard" ones
                   key=lambda c: -c[4])
    if not cands:
        return None
    runner_up = cands[1][4] if len(cands) > 1 else -math.inf
    best = [cands[0][0], cands[0][1]]
    if first_within is not None and best == row["first"]:
        within = first_within
    if cands[0][4] < row["free_score"] - within or cands[0][4] - runner_up < margin:
        return None
    return best


def decide(row: dict[str, Any], confirm: float, runner_up: float, score: tuple[float, float] | None = None,
           first_within: float | None = None, unprompted: bool = False, as_sentences: float | None = None,
           distance: float = TINY_SCORE_DISTANCE, nearest: int = 3) -> Any:
    """Ear.decide's outcome for a recorded clip (``score``: score_within and score_margin, or
    None for no weighing by Whisper's score, of the commands at most ``distance`` (score_distance)
    from a transcript; ``unprompted``: a command spotted in Whisper's
    unprompted transcript is taken next, needs a record made with --bare; ``as_sentences``:
    the last try's, within that of Whisper's own transcript's score, or None for off; needs
    "styled_spot" in the record)."""
    taken = decide_before_last(row, confirm, runner_up, score, first_within, unprompted, distance, nearest)
    if taken is not None or as_sentences is None or row.get("styled_score") is None:
        return taken
    if row["free_score"] == -math.inf or row["styled_score"] < row["free_score"] - as_sentences:
        return None
    return row["styled_spot"]


def decide_before_last(row: dict[str, Any], confirm: float, runner_up: float,
                       score: tuple[float, float] | None, first_within: float | None, unprompted: bool,
                       distance: float = TINY_SCORE_DISTANCE, nearest: int = 3) -> Any:
    if row["spots"][0]:
        return row["spots"][0]
    if unprompted and row.get("bare_spots") and row["bare_spots"][0]:
        return row["bare_spots"][0]
    if row["first"] and (not row["words"] or min(row["first_distances"]) <= confirm):
        return row["first"]
    for spot, apart in zip(row["spots"][1:], row["spot_distances"][1:], strict=True):
        if spot and apart is not None and apart <= runner_up:
            return spot
    return weigh(row, *score, distance=distance, first_within=first_within, nearest=nearest) if score else None


def tally(rows: list[dict[str, Any]], **how: Any) -> str:
    """Commands right, wrong, and table talk taken by ``decide(row, **how)``; and commands right
    per condition."""
    commands = [r for r in rows if r["expected"]]
    talk = [r for r in rows if not r["expected"]]
    said = [decide(r, **how) for r in commands]
    right = sum(d == r["expected"] for d, r in zip(said, commands, strict=True))
    wrong = sum(d not in (None, r["expected"]) for d, r in zip(said, commands, strict=True))
    taken = sum(decide(r, **how) is not None for r in talk)
    conditions = sorted({r["condition"] for r in commands})
    per = []
    for name in conditions:
        these = [(d, r) for d, r in zip(said, commands, strict=True) if r["condition"] == name]
        per.append(f"{100 * sum(d == r['expected'] for d, r in these) / len(these):3.0f}")
    return (f"{right:>5}/{len(commands)} {100 * right / len(commands):5.1f}%  {wrong:>5}  {taken:>4}/{len(talk)}"
            f"   {' '.join(per)}")


def simulate(paths: Sequence[Path], model: str = DEFAULT_WHISPER_MODEL) -> None:
    """The grids (see the module's docstring) on records made with Whisper ``model``, whose own
    thresholds (score_distance) are the defaults."""
    d = HearingSettings(whisper=WhisperSettings(model=model))
    for path in paths:
        rows = read_records(path)
        conditions = sorted({r["condition"] for r in rows if r["expected"]})
        print(f"{path}: {sum(1 for r in rows if r['expected'])} command clips, "
              f"{sum(1 for r in rows if not r['expected'])} table-talk clips")
        print(f"per condition: {', '.join(conditions)}")
        print("confirm_distance  runner_up_distance  commands right   wrong  table talk   per condition")
        for confirm in CONFIRM:
            for runner_up in RUNNER_UP:
                print(f"{confirm:>16} {runner_up:>19}  {tally(rows, confirm=confirm, runner_up=runner_up)}")
        if not all("cands" in r for r in rows):
            continue
        bare = all("bare_spots" in r for r in rows)
        print(f"and with Whisper's score weighing the nearest commands (confirm {d.confirm_distance}, runner-up "
              f"{d.runner_up_distance}); unprompted: the unprompted transcript's command"
              f"{'' if bare else ' (not recorded: --bare)'}")
        print("score_within  score_margin  first_within  unprompted  commands right   wrong  table talk"
              "   per condition")
        for unprompted in (False, True) if bare else (False,):
            for within in SCORE_WITHIN:
                for margin in SCORE_MARGIN:
                    for first in FIRST_WITHIN:
                        how = {"confirm": d.confirm_distance, "runner_up": d.runner_up_distance,
                               "score": (within, margin), "first_within": max(first, within),
                               "unprompted": unprompted}
                        print(f"{within:>12} {margin:>13} {max(first, within):>13} {unprompted!s:>11}  "
                              f"{tally(rows, **how)}")
        how = {**default_how(d, bare), "as_sentences": None}
        print("score_distance (the farthest a weighed command may be from a transcript; the other "
              "settings as they are): distance  commands right   wrong  table talk   per condition")
        for distance in SCORE_DISTANCE:
            print(f"{distance:>12}  {tally(rows, **{**how, 'distance': distance})}")
        if all(len(c) >= 7 for r in rows for c in r["cands"]):
            print("score_nearest (the commands weighed per transcript; the other settings as they are):")
            for nearest in SCORE_NEAREST:
                for distance in SCORE_DISTANCE[1:]:
                    these = {**how, "nearest": nearest, "distance": distance}
                    print(f"{nearest:>6} {distance:>5}  {tally(rows, **these)}")
        else:
            print("score_nearest: the record holds the 3 nearest commands alone, without their ranks")
        print(f"the defaults ({d.score_within}, {d.score_margin}, {d.first_within}, {d.unprompted and bare}): "
              f"{tally(rows, **how)}")
        if all("styled_score" in r for r in rows):
            print("and the last try (as_sentences) after them, within:")
            for within in AS_SENTENCES_WITHIN:
                print(f"{within:>12}  {tally(rows, **{**how, 'as_sentences': within})}")
            print(f"the defaults ({d.as_sentences and d.as_sentences_within}): "
                  f"{tally(rows, **default_how(d, bare))}")
        else:
            print("the last try (as_sentences): not recorded (--restyle)")


def read_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def clip_of(row: dict[str, Any]) -> tuple[str, str, str]:
    """Which clip a record is of: what was said, by which voice, in which condition."""
    return row["text"], row["voice"], row["condition"]


def same_clips(rows: list[dict[str, Any]], like: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """The first of ``rows`` as many as ``like`` has (records of the same voice set are of the
    same clips in the same order, so a record cut short is compared on the clips it has)."""
    if len(rows) < len(like):
        raise SystemExit(f"{path} has {len(rows)} clips, fewer than the {len(like)} to compare with")
    for i, (row, other) in enumerate(zip(rows, like, strict=False)):
        if clip_of(row) != clip_of(other):
            raise SystemExit(f"{path} line {i + 1} is not the same clip as the records compared with")
    return rows[:len(like)]


def paired(rows: list[dict[str, Any]], again: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """``rows`` (as far as ``again`` goes), each with its clip's row of ``again`` (the same clips
    heard through noise suppression: --noise-suppression) as its "again"."""
    for i, (row, other) in enumerate(zip(rows, again, strict=False)):
        if clip_of(row) != clip_of(other):
            raise SystemExit(f"{path} line {i + 1} is not the clip of the records it is paired with")
        row["again"] = other
    return rows[:len(again)]


def whisper_alone(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` as if the first pass had heard nothing: no command, and not among the weighed."""
    return {**row, "first": None, "first_distances": None,
            "cands": [c for c in row["cands"] if not (len(c) > 5 and c[5] == "first")]}


def decide_again(row: dict[str, Any], again_within: float | None = None, **how: Any) -> Any:
    """``decide``, then, when it takes nothing and the row has an "again" (``paired``), Whisper's
    decision alone on the clip heard through noise suppression, weighing within
    ``again_within`` (None: score_within's): as ``again_suppressed`` does."""
    first = decide(row, **how)
    if first is not None or "again" not in row:
        return first
    score = how.get("score")
    if score is not None and again_within is not None:
        score = (again_within, score[1])
    return decide(whisper_alone(row["again"]), **{**how, "score": score})


def again_variants(rows: list[dict[str, Any]], how: dict[str, Any], d: HearingSettings) -> dict[
        str, tuple[int, int, int, int]]:
    """On ``paired`` rows: commands right and table talk taken with the second hearing as it is
    (Whisper alone, weighing within again_within), weighing within score_within, without
    weighing, with the first pass's command counting again (a veto undone), and without it."""
    score = how["score"]

    def undone(row: dict[str, Any]) -> Any:
        return decide(row, **how) or decide(row["again"], **how)

    def alone(within: float) -> Any:
        return lambda row: decide_again(row, within, **how)

    def unweighed(row: dict[str, Any]) -> Any:
        return decide(row, **how) or decide(whisper_alone(row["again"]), **{**how, "score": None})

    ways = {"as it is": alone(d.again_within), "within score_within": alone(score[0] if score else d.score_within),
            "no weighing": unweighed, "veto undone": undone,
            "no second hearing": lambda row: decide(row, **how)}
    out = {}
    for name, way in ways.items():
        said = [(way(r), r["expected"]) for r in rows]
        out[name] = (sum(x == e for x, e in said if e), sum(1 for _, e in said if e),
                     sum(x is not None for x, e in said if not e), sum(1 for _, e in said if not e))
    return out


def table(tuning: Path, held_out: Path, like: Sequence[Path] | None = None,
          model: str = DEFAULT_WHISPER_MODEL, again: Sequence[Path] | None = None) -> None:
    """Per condition, as bench_accuracy prints it: commands right on the tuning voices, the
    held-out voices and all, and table talk taken, by the hybrid's decision with the default
    settings, and with its last try (as_sentences) switched the other way (no effect on records
    without it). ``like``: records of the two voice sets (another model's, say) whose clips
    alone are counted; ``model``: the Whisper model the records were made with (its own
    thresholds are the defaults); ``again``: records of the same clips made with
    --noise-suppression, heard when the first records' decision takes nothing
    (``again_suppressed``)."""
    d = HearingSettings(whisper=WhisperSettings(model=model))
    sets = [read_records(path) for path in (tuning, held_out)]
    if again:
        sets = [paired(rows, read_records(other), other) for rows, other in zip(sets, again, strict=True)]
        print(f"heard again through noise suppression ({again[0]}, {again[1]}) when nothing was taken: "
              f"the first {len(sets[0])} tuning and {len(sets[1])} held-out clips")
    if like:
        sets = [same_clips(rows, read_records(other), path)
                for rows, other, path in zip(sets, like, (tuning, held_out), strict=True)]
        print(f"on the first {len(sets[0])} tuning and {len(sets[1])} held-out clips (those of {like[0]} and "
              f"{like[1]})")
    full = default_how(d)
    other = {**full, "as_sentences": None if d.as_sentences else d.as_sentences_within}
    if again:
        print("the second hearing's variants (tuning voices, then held-out: commands right, table talk taken):")
        for rows in sets:
            print("  " + "; ".join(f"{name} {right}/{said}, {taken}/{talk}"
                                   for name, (right, said, taken, talk) in again_variants(rows, full, d).items()))
    conditions = [c.name for c in CONDITIONS if any(r["condition"] == c.name for r in sets[0] + sets[1])]

    def cells(rows: list[dict[str, Any]], how: dict[str, Any]) -> tuple[int, int, int, int, int]:
        commands = [r for r in rows if r["expected"]]
        talk = [r for r in rows if not r["expected"]]
        said = [decide_again(r, d.again_within, **how) for r in commands]
        return (sum(x == r["expected"] for x, r in zip(said, commands, strict=True)), len(commands),
                sum(x not in (None, r["expected"]) for x, r in zip(said, commands, strict=True)),
                sum(decide_again(r, d.again_within, **how) is not None for r in talk), len(talk))

    switched = (f"with the last try (as_sentences, within {d.as_sentences_within})" if not d.as_sentences
                else "without the last try (as_sentences)")
    for label, how in (("defaults", full), (switched, other)):
        print(f"{label}:")
        print("| condition | commands right (tuning / held-out / all) | other command taken | table talk taken |")
        print("|---|---|---|---|")
        for name in [*conditions, "overall"]:
            parts = [[r for r in rows if name == "overall" or r["condition"] == name] for rows in sets]
            (a, n, wa, ta, tn), (b, m, wb, tb, tm) = cells(parts[0], how), cells(parts[1], how)
            print(f"| {name} | {100 * a / n:.1f}% / {100 * b / m:.1f}% / **{100 * (a + b) / (n + m):.1f}%** "
                  f"| {wa + wb}/{n + m} | {ta + tb}/{tn + tm} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--voices", choices=["tuning", "held-out"], default="tuning")
    parser.add_argument("--out", type=Path, help="where to record the clips' outcomes (JSON lines)")
    parser.add_argument("--conditions", nargs="+", default=list(STUDY_CONDITIONS),
                        help="conditions to record (names as bench_accuracy prints them)")
    parser.add_argument("--bare", action="store_true", help="also record Whisper's transcripts without the prompt")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/bench-clips"), help="clip cache folder")
    parser.add_argument("--whisper-model", default=DEFAULT_WHISPER_MODEL, choices=list(KNOWN_MODELS),
                        help="the Whisper model to record with (hearing.whisper.model); with --table and "
                             "--simulate, the one the records were made with")
    parser.add_argument("--threads", type=int, default=0,
                        help="Whisper's CPU threads (0: all; 1 when two records run at once on two cores)")
    parser.add_argument("--noise-suppression", type=int, choices=range(5), default=None,
                        help="Whisper hears through WebRTC noise suppression at this level (0 off; "
                             "default: hearing.whisper.noise_suppression's)")
    parser.add_argument("--simulate", type=Path, nargs="+", help="recorded files to replay the decision on")
    parser.add_argument("--respot", type=Path, help="a recorded file to spot again into --out (see respot)")
    parser.add_argument("--restyle", type=Path,
                        help="a recorded file of --voices to add the last try's transcripts to, into --out")
    parser.add_argument("--rehear", type=Path,
                        help="a recorded file of --voices whose clips of --intents are heard again, into --out")
    parser.add_argument("--intents", nargs="+", default=[], help="with --rehear: the commands heard again")
    parser.add_argument("--table", type=Path, nargs=2, metavar=("TUNING", "HELD_OUT"),
                        help="records of the two voice sets: per condition, as bench_accuracy prints it")
    parser.add_argument("--again", type=Path, nargs=2, metavar=("TUNING", "HELD_OUT"),
                        help="with --table: records of the same clips made with --noise-suppression, whose "
                             "decision counts where the first records' takes nothing (again_suppressed)")
    parser.add_argument("--like", type=Path, nargs=2, metavar=("TUNING", "HELD_OUT"),
                        help="with --table: count only the clips these records have (e.g. another model's, "
                             "cut short)")
    args = parser.parse_args(argv)
    if args.table:
        table(args.table[0], args.table[1], like=args.like, model=args.whisper_model, again=args.again)
        return 0
    if args.respot:
        if args.out is None:
            parser.error("--respot FILE needs --out FILE")
        respot(args.respot, args.out)
        return 0
    if args.restyle:
        if args.out is None:
            parser.error("--restyle FILE needs --out FILE")
        restyle(args.voices, args.restyle, args.out, args.cache, args.whisper_model)
        return 0
    if args.rehear:
        if args.out is None or not args.intents:
            parser.error("--rehear FILE needs --intents INTENT... and --out FILE")
        rehear(args.voices, args.rehear, args.intents, args.out, args.cache, args.whisper_model, args.threads,
               args.noise_suppression)
        return 0
    if args.simulate:
        simulate(args.simulate, args.whisper_model)
        return 0
    if args.out is None:
        parser.error("--out FILE (or --simulate FILE...)")
    record(args.voices, args.out, args.cache, args.conditions, args.bare, args.whisper_model, args.threads,
           args.noise_suppression)
    return 0


if __name__ == "__main__":
    sys.exit(main())
