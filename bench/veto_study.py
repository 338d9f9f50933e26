"""How the hybrid's free-text stages trade commands heard against table talk taken: the veto's
``confirm_distance`` and the last try (``as_sentences``).

    .venv/bin/python bench/veto_study.py --voices tuning --out /tmp/veto-tuning.jsonl
        [--conditions clean "white 20 dB" "white 10 dB" "babble 20 dB" "babble 10 dB" reverb "reverb+babble 10"]
    .venv/bin/python bench/veto_study.py --simulate /tmp/veto-tuning.jsonl
    .venv/bin/python bench/veto_study.py --rehear /tmp/veto-tuning.jsonl --voices tuning --intents start_listening \
        --out /tmp/reheard.jsonl
    .venv/bin/python bench/veto_study.py --table /tmp/veto-tuning.jsonl /tmp/veto-held-out.jsonl

The first form hears bench_accuracy's clips (``--per-intent 1 --talk-voices 1``: every intent
of every game and 64 table-talk lines) said by one voice set (tuning or held-out) in the
``--conditions`` (default: clean, white noise 20 dB, babble 20 dB, reverberant), once, and
records what the free-text stages decide on: the streaming first pass's command and its
words, Whisper's three best transcripts (prompted with the game's examples), what is spotted
in each, how far each is from the first pass's command (what the veto compares with
``confirm_distance``), and Whisper's transcript under the last try's prompt (each example a
sentence: ``as_sentences``), the command spotted in it and Whisper's scores of that command
and of its first transcript. The clips are heard in a fixed shuffled order, so a record cut
short is a fair sample, and running the same command again takes it up where it stopped.
``--rehear`` hears the clips of some commands again into a new record, with the listening
moments as they are now (a change to the moment a command is asked in).

The second form replays the hybrid's real stages (``SecondOpinion.cascade``, on a ``Case``
per record) for a grid of their thresholds, one changed at a time from the defaults:
``confirm_distance``, then ``as_sentences_within`` with the last try on; and with each stage
switched off; printing commands right, wrong and table talk taken: thresholds are chosen on
the tuning voices and read off on the held-out ones. ``--table`` prints both voice sets'
records per condition, as bench_accuracy does, with the defaults and with the last try
switched the other way. A replay is of the free-text stages alone (spot, veto, as_sentences),
with Whisper writing the free text (``hearing.whisper.free_text`` true): the records hold
neither the grammar search (the closed stage, switched off in the replay;
bench/closed_study.py and closed_order_study.py replay it on bench_accuracy's rows) nor the
own reading the free-text stages read in the free text's place when ``free_text`` is off. It
is a replay on recorded inputs: Whisper heard each whole clip, where bench_accuracy's hybrid
hears the utterance the first pass's endpointer cut. Recording one condition of one voice set
(169 clips) takes under 3 minutes on this 2-core machine (``--threads 1``); a replay, seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.engine import Command  # noqa: E402
from assistant.games import GAMES, game_module  # noqa: E402
from assistant.hearing import HearingSettings, NotRecognized, Transcript, open_ear  # noqa: E402
from assistant.hearing.pipeline import Case  # noqa: E402
from assistant.hearing.recognizer import Ear, SecondOpinion, prompt_as_sentences, written  # noqa: E402
from assistant.hearing.spotting import Spotter  # noqa: E402
from assistant.hearing.text_engine import TextRecognizer  # noqa: E402
from assistant.hearing.whisper_engine import (  # noqa: E402
    DEFAULT_WHISPER_MODEL,
    KNOWN_MODELS,
    WhisperSettings,
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

STUDY_CONDITIONS = ("clean", "white 20 dB", "babble 20 dB", "reverb")
#: Whisper's best transcripts a record holds (hearing.whisper.hypotheses up to this is replayed)
HYPOTHESES = 3
CONFIRM = (0.3, 0.4, 0.5, 0.6)
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


def record(voices: str, out: Path, cache: Path, study: Sequence[str] = STUDY_CONDITIONS,
           model: str = DEFAULT_WHISPER_MODEL, threads: int = 0, suppression: int | None = None) -> None:
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
            f.write(json.dumps(hear_clip(ears[game], grammar, maker, noise, clip)) + "\n")
            f.flush()
            if i % 100 == 0:
                print(f"{i} of {len(clips)} clips", file=sys.stderr, flush=True)


def hear_clip(ear: Any, grammar: Any, maker: ClipMaker, noise: Any, clip: Clip) -> dict[str, Any]:
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
    texts = second.transcriber.hypotheses(audio.tobytes(), ear.prompt(), HYPOTHESES) or [""]
    spots = [ear.spot(t) for t in texts]
    command = first.command if isinstance(first, Transcript) else None
    found = [s.command if isinstance(s, Transcript) else None for s in spots]
    # the first pass's own words, even when it doubted or refused them
    heard = first.heard if isinstance(first, NotRecognized) else first.heard or first.text
    # Whisper's score of its own first transcript (on the kept encoding), which the last try's must come near
    free_score = second.transcriber.score([texts[0]], ending=False)[0]
    styled = styled_transcript(ear)  # on the kept encoding, scored under the first prompt
    return {
        "game": game, "condition": condition.name, "voice": speaker.label, "text": text,
        "expected": [expected.intent, dict(expected.slots)] if expected else None,
        "first": [command.intent, dict(command.slots)] if command else None,
        "first_text": first.text if isinstance(first, Transcript) else "",
        "texts": texts, "words": bool(ear.sentences.words(texts[0])),
        "spots": [[c.intent, dict(c.slots)] if c else None for c in found],
        "first_distances": [second.spotter.distance(t, command) for t in texts] if command else None,
        "free_score": free_score, "heard": heard,
        **styled,
    }


def styled_transcript(ear: Any) -> dict[str, Any]:
    """Whisper's transcript under the last try's prompt (each example a sentence:
    the as_sentences stage), the command spotted in it, and Whisper's score of that command as the
    whole transcript under the first prompt, as in play: a record's "styled", "styled_spot" and
    "styled_score" (the transcriber holds the audio's encoding under the first prompt already)."""
    second = ear.second
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
                row = hear_clip(ears[game], grammar, maker, noise, clip)
                heard += 1
            f.write(json.dumps(row) + "\n")
    print(f"{heard} of {len(pairs)} clips heard again", file=sys.stderr)


#: The audio a replay passes the stages: what Whisper wrote of the clip is in the record.
REPLAYED_AUDIO = bytes(32_000)


class _NoWhisper:
    """Stands where Whisper would: a replay gives each case its record (``Replayed``), which
    holds no grammar search (the closed stage is off in a replay)."""

    def transcribe(self, audio: bytes, prompt: str = "") -> str:
        raise ValueError("replays hear no audio")

    def listen(self, audio: bytes, short: bool = False) -> bool:
        raise ValueError("a record holds no grammar search: replay with the closed stage off")

    def held_to(self, graph: Any, beam: int, keep: int = 8, span: float = 0.0) -> list[Any]:
        raise ValueError("a record holds no grammar search: replay with the closed stage off")

    def own_reading(self) -> tuple[str, float]:
        raise ValueError("a record holds no grammar search: replay with the closed stage off")

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1) -> list[str]:
        raise ValueError("replays hear no audio")

    def again(self, prompt: str = "", count: int = 1) -> list[str]:
        raise ValueError("replays hear no audio")

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]:
        raise ValueError("replays hear no audio")

    def let_go(self) -> None:
        pass


class Replayed(_NoWhisper):
    """Whisper as a record kept it, for the real stages to decide on: its best transcripts, its
    last-try transcript, and its scores of that transcript's command and of its own first
    transcript; any other command is one Whisper would not end with (not taken)."""

    def __init__(self, row: dict[str, Any], ear: Any) -> None:
        self.row = row
        self.ear = ear

    def transcribe(self, audio: bytes, prompt: str = "") -> str:
        return self.hypotheses(audio, prompt)[0]

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1) -> list[str]:
        return list(self.row["texts"][:count])

    def again(self, prompt: str = "", count: int = 1) -> list[str]:
        return list(self.row.get("styled") or [])[:count]

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]:
        row = self.row
        scores: dict[str, float] = {}
        styled = row.get("styled") or []
        spotted = self.ear.spot(styled[0]) if styled and row.get("styled_score") is not None else None
        if isinstance(spotted, Transcript):
            scores[written(spotted.text)] = row["styled_score"]
        return [row["free_score"] if not ending else scores.get(text, -math.inf) for text in texts]


def replay(row: dict[str, Any], ears: dict[str, Any], moments: dict[str, Any], games: dict[str, SentenceSet],
           settings: HearingSettings) -> Any:
    """What the hybrid's real stages (assistant/hearing/pipeline.py) decide on a recorded clip with
    ``settings``: the command taken ([intent, slots]), or None."""
    ear = ears[row["game"]]
    expected = row["expected"]
    ear.set_intents(grammar_for(moments[row["game"]], expected[0] if expected else None)
                    or games[row["game"]].intents)
    if row["first"]:
        said = row.get("first_text") or row["heard"]
        first: Transcript | NotRecognized = Transcript(said, 1.0, row["heard"], Command(row["first"][0],
                                                                                         row["first"][1]))
    else:
        first = NotRecognized(row["heard"], "the first pass took nothing", 0.0)
    second = ear.second
    assert second is not None
    decided = second.cascade.decide(Case(ear, Replayed(row, ear), second.spotter, settings, first, REPLAYED_AUDIO))
    command = decided.command if isinstance(decided, Transcript) else None
    return [command.intent, dict(command.slots)] if command is not None else None


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


class Replay:
    """Every game's real Ear (its stages, its spotter) for replaying records made with Whisper
    ``model``; spotting a text again under the same grammar is remembered (a grid replays the
    same transcripts many times). The settings are the defaults but for what a record cannot
    replay: the free text is written (``free_text``) and the closed stage is off (no record
    holds Whisper's own reading or its grammar search)."""

    def __init__(self, model: str = DEFAULT_WHISPER_MODEL) -> None:
        self.games = {name: game_module(name).sentences() for name in GAMES}
        self.moments = {name: listening_moments(name) for name in self.games}
        self.settings = HearingSettings(recognizer="hybrid", whisper=WhisperSettings(model=model), free_text=True,
                                        closed=False)
        self.ears = {name: Ear(TextRecognizer(), sentences,
                               second=SecondOpinion(_NoWhisper(), Spotter(sentences, settings=self.settings.spot),
                                                    self.settings))
                     for name, sentences in self.games.items()}
        for ear in self.ears.values():
            ear.spot = _remembered(ear)  # type: ignore[method-assign]

    def decide(self, row: dict[str, Any], settings: HearingSettings) -> Any:
        return replay(row, self.ears, self.moments, self.games, settings)

    def tally(self, rows: list[dict[str, Any]], settings: HearingSettings) -> str:
        """Commands right, wrong, and table talk taken with ``settings``; and right per condition."""
        commands = [r for r in rows if r["expected"]]
        talk = [r for r in rows if not r["expected"]]
        said = [self.decide(r, settings) for r in commands]
        right = sum(d == r["expected"] for d, r in zip(said, commands, strict=True))
        wrong = sum(d not in (None, r["expected"]) for d, r in zip(said, commands, strict=True))
        taken = sum(self.decide(r, settings) is not None for r in talk)
        per = []
        for name in sorted({r["condition"] for r in commands}):
            these = [(d, r) for d, r in zip(said, commands, strict=True) if r["condition"] == name]
            per.append(f"{100 * sum(d == r['expected'] for d, r in these) / len(these):3.0f}")
        return (f"{right:>5}/{len(commands)} {100 * right / max(1, len(commands)):5.1f}%  {wrong:>5}  "
                f"{taken:>4}/{len(talk)}   {' '.join(per)}")


def _remembered(ear: Ear) -> Any:
    spot = ear.spot
    known: dict[tuple[str, frozenset[str]], Any] = {}

    def remembered(text: str) -> Any:
        key = (text, ear.graph.intents)
        if key not in known:
            known[key] = spot(text)
        return known[key]

    return remembered


def simulate(paths: Sequence[Path], model: str = DEFAULT_WHISPER_MODEL) -> None:
    """The real stages replayed on records made with Whisper ``model`` for a grid of their
    thresholds (one changed at a time from the defaults) and with each stage that is on switched
    off."""
    study = Replay(model)
    d = study.settings
    second = next(iter(study.ears.values())).second
    assert second is not None
    stages = [stage.name for stage in second.cascade.free_text if stage.on(d)]
    for path in paths:
        rows = read_records(path)
        print(f"{path}: {sum(1 for r in rows if r['expected'])} command clips, "
              f"{sum(1 for r in rows if not r['expected'])} table-talk clips; per condition: "
              f"{', '.join(sorted({r['condition'] for r in rows if r['expected']}))}")
        print("setting  value  commands right   wrong  table talk   per condition")
        print(f"the defaults  {study.tally(rows, d)}")
        grid: dict[str, Sequence[Any]] = {"confirm_distance": CONFIRM, "as_sentences_within": AS_SENTENCES_WITHIN}
        for name, values in grid.items():
            for value in values:
                these = replace(d, **{name: value, "as_sentences": d.as_sentences or name == "as_sentences_within"})
                print(f"{name} {value}  {study.tally(rows, these)}")
        for stage in stages:
            print(f"without {stage}  {study.tally(rows, d.without(stage))}")


def table(tuning: Path, held_out: Path, like: Sequence[Path] | None = None,
          model: str = DEFAULT_WHISPER_MODEL) -> None:
    """Per condition, as bench_accuracy prints it: commands right on the tuning voices, the
    held-out voices and all, and table talk taken, by the hybrid's real stages with the default
    settings, and with its last try (as_sentences) switched the other way. ``like``: records of
    the two voice sets (another model's, say) whose clips alone are counted; ``model``: the
    Whisper model the records were made with."""
    study = Replay(model)
    d = study.settings
    sets = [read_records(path) for path in (tuning, held_out)]
    if like:
        sets = [same_clips(rows, read_records(other), path)
                for rows, other, path in zip(sets, like, (tuning, held_out), strict=True)]
        print(f"on the first {len(sets[0])} tuning and {len(sets[1])} held-out clips (those of {like[0]} and "
              f"{like[1]})")
    conditions = [c.name for c in CONDITIONS if any(r["condition"] == c.name for r in sets[0] + sets[1])]

    def cells(rows: list[dict[str, Any]], settings: HearingSettings) -> tuple[int, int, int, int, int]:
        commands = [r for r in rows if r["expected"]]
        talk = [r for r in rows if not r["expected"]]
        said = [study.decide(r, settings) for r in commands]
        return (sum(x == r["expected"] for x, r in zip(said, commands, strict=True)), len(commands),
                sum(x not in (None, r["expected"]) for x, r in zip(said, commands, strict=True)),
                sum(study.decide(r, settings) is not None for r in talk), len(talk))

    switched = (f"with the last try (as_sentences, within {d.as_sentences_within})" if not d.as_sentences
                else "without the last try (as_sentences)")
    for label, settings in (("defaults", d), (switched, replace(d, as_sentences=not d.as_sentences))):
        print(f"{label}:")
        print("| condition | commands right (tuning / held-out / all) | other command taken | table talk taken |")
        print("|---|---|---|---|")
        for name in [*conditions, "overall"]:
            parts = [[r for r in rows if name == "overall" or r["condition"] == name] for rows in sets]
            (a, n, wa, ta, tn), (b, m, wb, tb, tm) = cells(parts[0], settings), cells(parts[1], settings)
            print(f"| {name} | {100 * a / max(1, n):.1f}% / {100 * b / max(1, m):.1f}% / "
                  f"**{100 * (a + b) / max(1, n + m):.1f}%** | {wa + wb}/{n + m} | {ta + tb}/{tn + tm} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--voices", choices=["tuning", "held-out"], default="tuning")
    parser.add_argument("--out", type=Path, help="where to record the clips' outcomes (JSON lines)")
    parser.add_argument("--conditions", nargs="+", default=list(STUDY_CONDITIONS),
                        help="conditions to record (names as bench_accuracy prints them)")
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
    parser.add_argument("--rehear", type=Path,
                        help="a recorded file of --voices whose clips of --intents are heard again, into --out")
    parser.add_argument("--intents", nargs="+", default=[], help="with --rehear: the commands heard again")
    parser.add_argument("--table", type=Path, nargs=2, metavar=("TUNING", "HELD_OUT"),
                        help="records of the two voice sets: per condition, as bench_accuracy prints it")
    parser.add_argument("--like", type=Path, nargs=2, metavar=("TUNING", "HELD_OUT"),
                        help="with --table: count only the clips these records have (e.g. another model's, "
                             "cut short)")
    args = parser.parse_args(argv)
    if args.table:
        table(args.table[0], args.table[1], like=args.like, model=args.whisper_model)
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
    record(args.voices, args.out, args.cache, args.conditions, args.whisper_model, args.threads,
           args.noise_suppression)
    return 0


if __name__ == "__main__":
    sys.exit(main())
