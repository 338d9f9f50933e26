"""Commands right, WRONG and missed, and table talk taken, per voice family and condition.

    python bench/bench_accuracy.py [--game all] [--quick] [--engines pocketsphinx,vosk,whisper,hybrid,vosk-hybrid]
        [--conditions 'clean,white 20 dB,talkers 10 dB'] [--sets tuning,held-out] [--voices 1]
        [--talk-voices 2] [--talk-every 1] [--fsdd DIR] [--fsdd-entries 48] [--ablation]
        [--cache DIR] [--results NAME] [--note TEXT] [--json FILE] [--count] [-v]
        [--session K [--session-rows FILE]] [--session-sweep FILE]

Commands are sampled (seeded) from each game's own sentence expansion (``--game all``, the
default: every game; or one game's name), ``--per-intent`` of every intent. Table talk
(``TABLE_TALK``: chatter, and lines holding command words that are not commands, such as
"can you pass me the chips" or "spin me round") must give no command. Three voice families:

- **Piper** and **espeak-ng** (synthetic): each command is said by ``--voices`` voices of
  ``TUNING_SPEAKERS`` and as many of ``HELD_OUT_SPEAKERS`` (``tests.support.spoken``), each
  table-talk line by ``--talk-voices`` of each, taken in turn;
- **people (FSDD)**: real recordings of six people saying zero, one and two (the Free Spoken
  Digit Dataset, CC BY-SA 4.0, read from ``--fsdd``: benchmark data, never shipped). Up to
  ``--fsdd-entries`` of each game's commands said with those words alone (button entries:
  "one zero zero", "zero two") are said by every recorded speaker, as one speaker's takes joined
  by short pauses (``bench/voices.py``). Speakers jackson, nicolas and yweweler are for tuning;
  theo, george and lucas are held out. The default, 48, takes every such entry of the four games
  up to 48 each (51 in all): 153 clips a set and condition; 18 could not show a regression.

``--sets held-out`` hears only the held-out voices. Each clip is heard in every condition:
clean, white noise and babble (seven talkers at once) at 20 and 10 dB SNR, **one to three other
talkers at 10 dB** (people across the table: other voices saying other sentences), a
reverberant room (RT60 0.6 s, synthetic), and that room with babble at 10 dB (``--conditions``
can also name 'white 5 dB', 'babble 5 dB', and 'talkers 10 dB 3 s before' and 'clean 5 s before':
three seconds of the other talkers, or five of a quiet room, before the command, as live play
hears them: the microphone's audio since the last utterance is the utterance's, and Whisper
hears its loud part, ``hearing.whisper.trim``: the grammar search with 0.2 s more each side, the
free text with 0.5 s; the first pass hears all of it).

Each command is heard with the grammar of a moment of play where it is asked, as in play:
the moments come from ``assistant.hearing.moments`` (seeded random play through the real
sessions, and scenes played to on purpose), and a command is decoded under the largest one
that allows it; table talk under the largest of all of the game it is heard in. With
--all-intents every clip is heard with every sentence of its game (the worst case).

For each engine (``--engines``; one that cannot be opened here is listed as not available)
the tables give, per condition, voice family and voice set (tuning, held-out): commands
right, WRONG (another move made: worse than a miss) and missed; table talk taken; the
WRONG commands and table talk taken split into those play would act on and those it would
ask about first (taken with doubt, and not harmless: "Explore one zero zero?" is acted on only
after a yes; ``asked_first``). A command taken with doubt whose intent is harmless (status,
repeat...) is let go the first time in play (kept as a near miss, acted on when said again:
``tally.as_played``), so it counts as missed, right or wrong; the rows keep what hearing decided.
Then the
CPU seconds the hearing of one utterance took (process time, every thread, so Whisper's too:
median and 90th percentile) and its wall-clock seconds (inflated on a busy machine); then per
game and per voice. A result is right when it makes the move asked for: in The Omega Virus two
commands that press the same keys are the same move ("zero" when termination is asked for
"terminate with zero", ``tally.same_move``, held to the real Command Center by its test).
Figures on tuning voices say nothing about voices never met: read the held-out rows.

``--ablation`` runs the hybrid as configured, then with each stage of its cascade switched
off in turn (``ABLATION``: stage name -> the settings that switch it off), and the first pass
alone, and prints per stage the change in commands right, WRONG (and WRONG acted on), table
talk taken and CPU.

``--session K`` plays sessions (issue 61, hearing that learns the table's voices): per voice,
``--voices`` Piper and as many espeak-ng voices of each set, each saying every sampled command of
every game and its share of the table talk, and each recorded person its button entries, one
evening in a seeded game-like order (``session_order``: game after game) with one
``TableVoices`` shared by its ears of every game. The first K commands confirmed as a player
would (``confirmable``: heard as said, acted on or asked and answered yes; else said again once,
``second_take``) are the learning phase; the rest are counted with learning on and off on the
same clips, play still confirming what it hears right. The table (``bench_accuracy_session``)
gives both, and the share of the off-run's misses the on-run gets right. Each counted row keeps
what the Learned stage placed nearest and by what margin, so ``--session-sweep`` replays its rule
(``replay``) at other SAME_DISTANCE and WORD_MARGIN: they are chosen on the tuning sessions.

Results go to ``bench/results/<name>.md``, its figures as JSON at the end (``--results``; the header gives the
command, date, machine, commit and ``--note`` lines). Clips are cached under --cache (default:
a temp folder); with --cache, each engine's results are also kept (``DIR/results/``) keyed by
the clip, its grammar, the settings, the hearing code and the sentence files: a stopped run
resumes where it stopped. --fresh ignores kept results. --count only counts the clips.

Sizes: a full run (the defaults) is about 4,000 clips per engine; the hybrid takes about 1 s
of CPU a clip (more in noise), so hours on a shared 2-core machine. ``--per-intent 1 --voices 1
--talk-voices 1 --talk-every 2 --fsdd-entries 8`` and three conditions is about 1,000 clips.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, is_dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.config import PROJECT_ROOT, Config  # noqa: E402
from assistant.engine import Command  # noqa: E402
from assistant.games import GAMES, game_module  # noqa: E402
from assistant.hearing import ENGINES as RECOGNIZER_CHOICES  # noqa: E402
from assistant.hearing import (  # noqa: E402
    Doubted,
    Final,
    HearingSettings,
    ModelError,
    NearMiss,
    NotAllowedNow,
    NotRecognized,
    TableVoices,
    Transcript,
    choose,
    learning,
    open_ear,
)
from assistant.hearing.audio import RATE  # noqa: E402
from assistant.hearing.moments import grammar_for, listening_moments  # noqa: E402
from assistant.hearing.pipeline import Cascade  # noqa: E402
from assistant.hearing.settings import BY_KEY  # noqa: E402
from assistant.live.policy import missed_again  # noqa: E402
from assistant.sentences import SentenceSet  # noqa: E402
from bench.results import Results  # noqa: E402
from bench.voices import (  # noqa: E402
    FSDD_DIR,
    FSDD_HELD_OUT,
    FSDD_TUNING,
    HELD_OUT_VOICES,
    TUNING_VOICES,
    BenchClips,
    OtherTalkers,
    family,
    fsdd_speaker,
    is_digit_entry,
    label,
)
from tests.support.session import (  # noqa: E402
    SessionItem,
    Swept,
    choose_margins,
    confirmable,
    replay,
    session_order,
    sweep,
)
from tests.support.spoken import (  # noqa: E402
    HELD_OUT_SPEAKERS,
    TUNING_SPEAKERS,
    ClipMaker,
    Speaker,
    add_noise,
    babble,
    reverberate,
)
from tests.support.tally import (  # noqa: E402
    Tally,
    as_played,
    asked_first,
    harmless,
    in_play,
    same_move,
    steps_kept,
    tally_json,
    unchanged_without,
)

#: The engines --engines can name, each opened by open_ear as play opens it: hybrid is PocketSphinx first,
#: Whisper second (what auto picks); vosk-hybrid is Vosk first, Whisper second (the player's choice).
#: Every recognizer that hears audio (``recognizer:``'s choices but auto, which is one of them, and typing)
ENGINES = tuple(name for name in RECOGNIZER_CHOICES if name not in ("auto", "text"))
REVERB_RT60 = 0.6
REVERB_DRR_DB = 0.0


@dataclass(frozen=True)
class Condition:
    name: str
    noise: str | None = None  # white | babble | talkers (one to three people across the table)
    snr_db: float = 0.0
    rt60: float = 0.0         # reverberant room when > 0 (the noise is in the same room)
    #: seconds of the room (its noise, or the other talkers) before the command, as live play has
    #: them: the microphone's audio since the last utterance is the utterance's too
    lead_s: float = 0.0


CONDITIONS = (
    Condition("clean"),
    Condition("white 20 dB", "white", 20),
    Condition("white 10 dB", "white", 10),
    Condition("babble 20 dB", "babble", 20),
    Condition("babble 10 dB", "babble", 10),
    Condition("talkers 10 dB", "talkers", 10),
    Condition("reverb", rt60=REVERB_RT60),
    Condition("reverb+babble 10", "babble", 10, REVERB_RT60),
)
#: --quick's conditions.
QUICK_CONDITIONS = ("clean", "white 10 dB", "babble 10 dB", "talkers 10 dB", "reverb")
#: The voice sets: tuning (settings may be chosen on them) and held-out (only reported on).
SETS = ("tuning", "held-out")

#: The ablation (--ablation): each stage of the hybrid's cascade, and the settings that switch
#: it off (config keys, as in config.yaml). Today's settings are the only switches there are;
#: when the stages are declared classes with their own on/off switch, only this table changes.
ABLATION: tuple[tuple[str, dict[str, Any], str | None], ...] = (
    ("first pass's phone check", {"hearing.pocketsphinx.phone_check": 0.0,
                                  "hearing.pocketsphinx.early_phone_check": 0.0}, None),
    # each stage of Whisper's cascade (assistant/hearing/pipeline.py) by its own switch; the
    # third field names the stage (see ``unchanged_without``)
    *((f"stage {stage.name}", {stage.switch: type(BY_KEY[stage.switch].default)(0)}, stage.name)
      for stage in Cascade().stages if BY_KEY[stage.switch].default),
)
#: A stage off by default (as_sentences: on only with push-to-talk) is no stage of the cascade as
#: shipped and has no row here.
#: The ablation's reference rows: the first pass alone (no Whisper at all)
ABLATION_ALONE = "pocketsphinx"
#: Only when asked for with --conditions.
EXTRA_CONDITIONS = (Condition("white 5 dB", "white", 5), Condition("babble 5 dB", "babble", 5),
                    Condition("talkers 10 dB 3 s before", "talkers", 10, lead_s=3.0),
                    Condition("clean 5 s before", lead_s=5.0))

#: Table talk that must give no command (never used to tune the recognizers), with the game
#: whose words it plays on (heard with that game's grammar) or None (heard in each game in turn).
TABLE_TALK: tuple[tuple[str, str | None], ...] = (
    ("I would love another slice of pizza", None),
    ("whose go is it now", None),
    ("can you pass me the dice please", None),
    ("I rolled a one and a two, not bad", None),
    ("that was a really close game", None),
    ("where did the blue piece go", None),
    ("let me think about it for a second", None),
    ("no no no, that is not how it works", None),
    ("ha ha, you should have seen your face", None),
    ("it's getting late, we should finish soon", None),
    ("who took my red card", None),
    ("I need to use the bathroom", None),
    ("okay, my turn, give me a moment", None),
    ("the dog is barking again", None),
    ("three four five six seven", None),
    ("shall we order some food", None),
    ("wait, what just happened", None),
    ("repeat after me", None),
    ("help yourself to a drink", None),
    ("yes please, with milk and two sugars", None),
    ("no thanks, I'm absolutely full", None),
    ("can you pause the music for a minute", None),
    ("what time is the bus tomorrow", None),
    ("is it a new game or the same one", None),
    ("did anyone see where the probe went", "omega-virus"),
    ("I was sure it was in the green room", "omega-virus"),
    ("that's the second time you did that", "omega-virus"),
    ("can you pass me the chips", "omega-virus"),
    ("I'll teleport next time", "omega-virus"),
    ("my shields are down", "omega-virus"),
    ("explore the attic later, it's full of junk", "omega-virus"),
    ("attack of the clones is my favourite film", "omega-virus"),
    ("let's skip the small talk", "omega-virus"),
    ("don't terminate the contract yet", "omega-virus"),
    ("the secret code of the safe is my birthday", "omega-virus"),
    ("my skill at this game is terrible", "omega-virus"),
    ("red and yellow make orange", "omega-virus"),
    ("the commando films are so loud", "omega-virus"),
    ("spin me round", "planets"),
    ("next week maybe", "planets"),
    ("who landed on the moon first", "planets"),
    ("the earth is not flat, you know", "planets"),
    ("next time I'm bringing the snacks", "planets"),
    ("intruder alert, the cat is in the kitchen", "planets"),
    ("how many players are coming on Friday", "planets"),
    ("it's my turn to do the dishes", "planets"),
    ("the princess was caught in the rain", "planets"),
    ("let the spinner settle first", "planets"),
    ("roll the window down, it's hot", "msx-cards"),
    ("I drew a terrible card again", "msx-cards"),
    ("my fighter pilot uncle is visiting", "msx-cards"),
    ("the enemy of my enemy is my friend", "msx-cards"),
    ("set the table, please", "msx-cards"),
    ("capsule hotels are tiny", "msx-cards"),
    ("I read that book twice", "msx-cards"),
    ("undo the knot in your shoelace", "msx-cards"),
    ("I'm not done with my sandwich", "prologue"),
    ("who's ready for dessert", "prologue"),
    ("points for style, at least", "prologue"),
    ("keep going, you're nearly there", "prologue"),
    ("what's the status of the pizza", "prologue"),
    ("done and dusted", "prologue"),
    ("the score was tied at half time", "prologue"),
    ("scratch my back and I'll scratch yours", "prologue"),
)

#: game, condition, text, voice, the command it is (None: table talk), seed of its noise and room
Clip = tuple[str, Condition, str, Speaker, Command | None, int]


def sample_commands(sentences: SentenceSet, per_intent: int, seed: int = 7) -> list[tuple[str, Command]]:
    """``per_intent`` spoken sentences of every intent, drawn from its full expansion."""
    rng = random.Random(seed)
    chosen: list[tuple[str, Command]] = []
    for intent in sentences.intents:
        pool = [(t, c) for t, c in sentences.expand([intent]) if not any(ch.isdigit() for ch in t)]
        chosen.extend(rng.sample(pool, min(per_intent, len(pool))))
    return chosen


def voices_for(item: int, per_set: int, sets: Sequence[str] = SETS) -> list[Speaker]:
    """The synthetic voices that say line number ``item``: ``per_set`` of each set in ``sets``,
    in turn (0: all; -1: one voice, of the tuning set for even items and of the held-out set
    for odd ones, or of the one set asked for)."""
    pools = [voices for name, voices in (("tuning", TUNING_SPEAKERS), ("held-out", HELD_OUT_SPEAKERS))
             if name in sets]
    if per_set < 0:
        voices = pools[item % len(pools)]
        return [voices[(item // len(pools)) % len(voices)]]
    chosen: list[Speaker] = []
    for voices in pools:
        k = len(voices) if per_set <= 0 else min(per_set, len(voices))
        chosen.extend(voices[(item * k + j) % len(voices)] for j in range(k))
    return chosen


def fsdd_voices(sets: Sequence[str]) -> list[Speaker]:
    """The recorded speakers of the sets asked for (every one says every button entry)."""
    names = [*(FSDD_TUNING if "tuning" in sets else ()), *(FSDD_HELD_OUT if "held-out" in sets else ())]
    return [fsdd_speaker(name) for name in names]


def sample_entries(sentences: SentenceSet, count: int, seed: int = 11) -> list[tuple[str, Command]]:
    """Up to ``count`` of the game's commands said with the words zero, one and two alone (button
    entries: "one zero zero", "zero two"), as evenly over their lengths as there are."""
    by_length: dict[int, list[tuple[str, Command]]] = defaultdict(list)
    for text, command in sentences.expand(limit=100000):
        if is_digit_entry(text):
            by_length[len(text.split())].append((text, command))
    rng = random.Random(seed)
    chosen: list[tuple[str, Command]] = []
    pools = [rng.sample(pool, len(pool)) for _, pool in sorted(by_length.items())]
    while len(chosen) < count and any(pools):
        for pool in pools:
            if pool and len(chosen) < count:
                chosen.append(pool.pop())
    return chosen


def table_talk_games(line: int, tag: str | None, games: Sequence[str], voice: int) -> str:
    """The game a table-talk clip is heard in: its own game when it has one and it is run."""
    if tag is not None and tag in games:
        return tag
    return games[(line + voice) % len(games)]


@dataclass
class Noises:
    """The noises clips are mixed with: a babble track and the other-talker tracks."""

    babble: np.ndarray
    talkers: OtherTalkers


def make_clip(maker: ClipMaker, text: str, speaker: Speaker, condition: Condition, noises: Noises | np.ndarray,
              seed: int) -> np.ndarray:
    """``text`` said by ``speaker`` in ``condition`` (``noises``: a babble track alone will do
    for every condition but other talkers)."""
    clip = maker.say(text, speaker)
    if condition.lead_s > 0:
        clip = np.concatenate([np.zeros(int(condition.lead_s * RATE), np.int16), clip])
    babble_track = noises.babble if isinstance(noises, Noises) else noises
    if condition.noise == "talkers":
        if not isinstance(noises, Noises):
            raise ValueError("other talkers need Noises, not a babble track alone")
        clip = add_noise(clip, "babble", condition.snr_db, noises.talkers.track(seed), seed=seed)
    elif condition.noise is not None:
        clip = add_noise(clip, condition.noise, condition.snr_db, babble_track, seed=seed)
    if condition.rt60 > 0:
        clip = reverberate(clip, condition.rt60, seed, REVERB_DRR_DB)
    return clip


def code_fingerprint(settings: HearingSettings, config_path: Path | None) -> str:
    """What a result depends on besides its clip and grammar: the hearing code, the sentences
    (``assistant/sentences.py`` and every sentence file) and the settings."""
    digest = hashlib.sha1(json.dumps(canonical(settings), sort_keys=True, default=str).encode())
    digest.update(ROW_FORMAT.encode())
    package = PROJECT_ROOT / "assistant"
    files = [*(package / "hearing").rglob("*"), package / "sentences.py", *package.rglob("*.yaml")]
    for path in sorted(set(files)):
        if path.is_file() and path.suffix in (".py", ".yaml", ".txt", ".json") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(PROJECT_ROOT)).encode())
            digest.update(path.read_bytes())
    if config_path is not None and config_path.exists():
        digest.update(config_path.read_bytes())
    return digest.hexdigest()[:16]


def canonical(value: Any) -> Any:
    """``value`` in a form whose text is the same in every process: sets sorted (the order a
    set's repr gives changes with Python's hash seed, run by run), dataclasses as dicts."""
    if is_dataclass(value) and not isinstance(value, type):
        return {name: canonical(v) for name, v in vars(value).items()}
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def clip_key(game: str, condition: Condition, text: str, speaker: Speaker, seed: int, grammar: Iterable[str]) -> str:
    data = [game, condition.name, condition.noise, condition.snr_db, condition.rt60, REVERB_DRR_DB, text,
            speaker.key(), seed, sorted(grammar)] + ([condition.lead_s] if condition.lead_s else [])
    return hashlib.sha1(json.dumps(data).encode()).hexdigest()[:20]


#: What a kept result row holds (a change here keeps earlier rows from being reused): v2 added
#: "asked" (asked about before acting, ``asked_first``); v5 "doubted" (taken with doubt: a ``Doubted``,
#: acted on without a question when its intent is harmless); v6 "ok" by the move made (``same_move``).
ROW_FORMAT = "rows v7: ok by move; doubted, asked, steps (with the budget's stop), expected, condition, voice"


def run_engine(engine: str, settings: HearingSettings, games: dict[str, SentenceSet],
               moments: dict[str, Counter[frozenset[str]] | None], clips: Sequence[Clip], maker: ClipMaker,
               noises: Noises, conditions: Sequence[Condition], verbose: bool,
               results_file: Path | None, quiet: bool = False, kept_only: bool = False,
               reuse: tuple[str, dict[str, dict[str, Any]]] | None = None,
               said_again: bool = False) -> dict[str, Any] | None:
    """Hear every clip with ``engine`` (through ``open_ear``, as in play) and print the tables
    (only the totals' line when ``quiet``); None when the engine cannot be opened here.
    ``reuse``: (a stage switched off in ``settings``, the rows of the same clips heard with every
    stage on): a clip whose hearing never reached that stage is not heard again, its row is
    taken (``unchanged_without``: also when the stage decided nothing and its CPU would not have
    let a later stage run); the summary's "rows_by_key" are the rows of this run."""
    ears = {}
    try:
        for game, sentences in games.items():
            ears[game] = open_ear(settings, sentences, engine=engine, fallback=False)  # each engine itself
    except ModelError as error:
        print(f"\n{engine}: not available here ({error})")
        return None
    except ValueError as error:
        print(f"\n{engine}: not known to this version ({error})")
        return None
    stages_run: list[tuple[str, str, float, list[float] | None]] = []
    for ear in ears.values():
        setattr(ear, "decide", steps_kept(ear, stages_run))  # noqa: B010 (the instance's, for this run)
    rows_by_key: dict[str, dict[str, Any]] = {}
    reused = 0
    done: dict[str, dict[str, Any]] = {}
    if results_file is not None and results_file.exists():
        for line in results_file.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short when a run was stopped
            done[row["key"]] = row
        print(f"{engine}: {len(done)} results from an earlier run of the same code ({results_file})",
              file=sys.stderr)
    out = results_file.open("a") if results_file is not None else None
    if out is not None and results_file is not None and results_file.stat().st_size:
        with results_file.open("rb") as kept:
            kept.seek(-1, 2)
            if kept.read(1) != b"\n":
                out.write("\n")  # after a line cut short
    tuning = set(TUNING_VOICES)
    table: dict[tuple[str, str, str], Tally] = defaultdict(Tally)   # (condition, family, voice set)
    per_game: dict[str, Tally] = defaultdict(Tally)
    per_voice: dict[Speaker, Tally] = defaultdict(Tally)
    errors: list[str] = []
    busy = audio = 0.0
    skipped = 0
    started = time.monotonic()
    try:
        for n, (game, condition, text, speaker, expected, seed) in enumerate(clips):
            if n and n % 100 == 0:
                rate = (time.monotonic() - started) / n
                print(f"{engine}: {n} of {len(clips)} clips, about {rate * (len(clips) - n) / 60:.0f} min left",
                      file=sys.stderr, flush=True)
            ear = ears[game]
            grammar = grammar_key(moments[game], games[game], expected)
            key = clip_key(game, condition, text, speaker, seed, grammar)
            row = done.get(key)
            same = (unchanged_without(reuse[0], reuse[1][key], settings.budget_seconds)
                    if row is None and reuse is not None and key in reuse[1] else None)
            if same is not None:
                row = {**same, "reused": True}
                reused += 1
                if out is not None:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
            if row is None and kept_only:
                skipped += 1
                continue
            clip = make_clip(maker, text, speaker, condition, noises, seed)  # made as needed: they are many
            if row is None:
                ear.set_intents(grammar)
                stages_run.clear()
                cpu_start = time.process_time()
                start = time.perf_counter()
                result = ear.hear(clip)
                seconds = time.perf_counter() - start
                cpu = time.process_time() - cpu_start  # every thread of this process: Whisper's too
                got = result.command if isinstance(result, Transcript) else None
                ok = same_move(game, got, expected) if expected is not None else got is None
                described = f"{got.intent} {dict(got.slots)}" if got is not None else "nothing"
                wanted = f"{expected.intent} {dict(expected.slots)}" if expected is not None else None
                row = {"key": key, "ok": ok, "got": described, "expected": wanted, "condition": condition.name,
                       "voice": label(speaker), "heard": result.heard, "seconds": seconds,
                       "cpu": cpu, "doubted": isinstance(result, Doubted) and result.command is not None,
                       "asked": asked_first(ear.sentences, result), "steps": list(stages_run),
                       "near": (f"{result.command.intent} {dict(result.command.slots)}"  # missed: asked if said again
                                if isinstance(result, NearMiss) and result.command is not None else None),
                       "why": result.reason if isinstance(result, NotRecognized) else ""}
                first = in_play(ear.sentences, result)  # a doubted harmless command: let go, a near miss
                if said_again and expected is not None and not isinstance(first, Transcript):
                    row["again"] = hear_again(ear, game, expected, first,
                                              make_clip(maker, text, second_take(speaker), condition, noises,
                                                        seed + 7919))
                if out is not None:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
            rows_by_key[key] = row
            busy += row["seconds"]
            audio += len(clip) / 16000
            row = as_played(row)  # a doubted harmless command is let go the first time
            took = row["got"] != "nothing"
            where = (condition.name, family(speaker), "tuning" if speaker in tuning else "held-out")
            for tally in (table[where], per_game[game], per_voice[speaker]):
                tally.add(expected is not None, row["ok"], took, row["seconds"], row.get("cpu"), row["asked"])
            if not row["ok"]:
                what = ("WRONG " if took else "missed") if expected is not None else "taken "
                what += (" (asked first)" if took and row["asked"] else
                         f" (doubted, harmless: let go; {row['near']} if said again)" if row.get("let_go") else "")
                errors.append(f"  {what} [{game}; {condition.name}; {label(speaker)}] {text!r} -> {row['got']} "
                              f"(heard {row['heard']!r})")
    finally:
        if out is not None:
            out.close()
    summary: dict[str, Any] = {"engine": engine, "rows": [], "games": {}, "voices": {}}
    totals: dict[str, Tally] = defaultdict(Tally)  # per voice set, every condition and family
    for (_, _, voice_set), tally in table.items():
        totals[voice_set].merge(tally)
        totals["all"].merge(tally)
    summary["totals"] = {name: tally_json(tally) for name, tally in totals.items()}
    summary["clips_heard"] = len(clips) - skipped
    summary["clips"] = len(clips)
    summary["reused"] = reused
    summary["rows_by_key"] = rows_by_key
    if reuse is not None:
        print(f"{engine} without {reuse[0]}: {reused} of {len(clips)} clips it could not change (their results "
              "taken from the run with it)", file=sys.stderr, flush=True)
    if quiet:
        return summary
    if skipped:
        print(f"\n{engine}: {len(clips) - skipped} of the {len(clips)} clips were heard before the run was stopped "
              "(--kept-only: the others are left out of these tables)")
    print(f"\n== {engine} ==  ({len(clips) - skipped} clips, {audio / 60:.1f} min of audio, "
          f"hearing took {busy / max(audio, 1e-9):.2f}x real time, wall-clock)")
    print(TABLE_HEAD)
    order = {c.name: i for i, c in enumerate(conditions)}
    for where in sorted(table, key=lambda w: (order.get(w[0], 99), w[1], w[2] != "held-out")):
        print(table_row(where, table[where]))
        summary["rows"].append({"condition": where[0], "voices": where[1], "set": where[2],
                                **tally_json(table[where])})
    for name in ("held-out", "tuning", "all"):
        if name in totals:
            print(table_row(("every condition", "every family", name), totals[name]))
    print(near_misses(rows_by_key.values()))
    if said_again:
        print(said_again_line(rows_by_key.values()))
    print("\nby game (every voice and condition):")
    print(TABLE_HEAD.replace("| condition | voices | set |", "| game | | |", 1))
    for game, tally in per_game.items():
        print(table_row((game, "", ""), tally))
        summary["games"][game] = tally_json(tally)
    print("\nby voice (every condition):")
    print(TABLE_HEAD.replace("| condition | voices | set |", "| voice | family | set |", 1))
    for voices, name in ((TUNING_VOICES, "tuning"), (HELD_OUT_VOICES, "held-out")):
        for speaker in voices:
            if speaker in per_voice:
                print(table_row((label(speaker), family(speaker), name), per_voice[speaker]))
                summary["voices"][label(speaker)] = {"set": name, **tally_json(per_voice[speaker])}
    if verbose:
        print("\nerrors:")
        print("\n".join(errors) or "  none")
    return summary


def second_take(speaker: Speaker) -> Speaker:
    """The same player saying it again: a synthetic voice 6% slower (a player repeating slows
    down), a recorded speaker other takes of the same digits."""
    return replace(speaker, speed=round(speaker.speed * 1.06, 3))


def hear_again(ear: Any, game: str, expected: Command, first: Final, clip: np.ndarray) -> dict[str, Any]:
    """A command missed (``first``, as play took it: ``in_play``), said again at once (``clip``):
    what the live loop makes of the two. The second heard (right or wrong, asked first or not), or
    both misses near the same command (``live.policy.missed_again``: taken with doubt, so asked about
    unless harmless; right or wrong), or nothing still."""
    again = in_play(ear.sentences, ear.hear(clip))
    if isinstance(again, Transcript) and again.command is not None:
        return {"outcome": "heard", "ok": same_move(game, again.command, expected),
                "asked": asked_first(ear.sentences, again),
                "got": f"{again.command.intent} {dict(again.command.slots)}"}
    if isinstance(first, NotRecognized) and isinstance(again, NotRecognized) and missed_again(first, again):
        assert isinstance(again, NearMiss) and again.command is not None
        return {"outcome": "asked", "ok": same_move(game, again.command, expected),
                "asked": not harmless(ear.sentences, again.command),
                "got": f"{again.command.intent} {dict(again.command.slots)}"}
    return {"outcome": "nothing", "ok": False, "asked": False, "got": "nothing"}


def said_again_line(rows: Iterable[dict[str, Any]]) -> str:
    """The ``--said-again`` tally: each command missed, said again at once."""
    again = [r["again"] for r in rows if "again" in r]
    heard = [a for a in again if a["outcome"] == "heard"]
    asked = [a for a in again if a["outcome"] == "asked"]
    return (f"said again at once (--said-again: each of {len(again)} commands missed, a second take by the same "
            f"voice): {sum(a['ok'] for a in heard)} heard right, {sum(not a['ok'] for a in heard)} heard as "
            f"another command ({sum(not a['ok'] and not a['asked'] for a in heard)} acted on); taken with doubt "
            f"after the two misses (asked about unless harmless): {sum(a['ok'] for a in asked)} the command said, "
            f"{sum(not a['ok'] for a in asked)} another; {len(again) - len(heard) - len(asked)} missed again")


def near_misses(rows: Iterable[dict[str, Any]]) -> str:
    """What the live loop would make of each miss said again at once: a command missed (vetoed, or
    near what Whisper wrote) twice running is asked about, so a miss near the command said is a
    question away from right, and one near another command a wrong question (a harmless one acted on)."""
    rows = [as_played(r) for r in rows]
    said = [r for r in rows if r.get("expected") and r["got"] == "nothing"]
    talk = [r for r in rows if not r.get("expected") and r["got"] == "nothing"]
    right = sum(r.get("near") == r["expected"] for r in said)
    other = sum(r.get("near") is not None and r.get("near") != r["expected"] for r in said)
    near_talk = sum(r.get("near") is not None for r in talk)
    return (f"\nmissed, said again at once (the live loop asks about a command missed twice running): "
            f"{right} of {len(said)} missed commands were near the command said, {other} near another; "
            f"{near_talk} of {len(talk)} table talk clips let go were near a command")


TABLE_HEAD = ("| condition | voices | set | commands right | WRONG | wrong, acted on | wrong, asked first | missed "
              "| table talk taken | talk acted on | talk asked first "
              "| CPU s median | CPU s p90 | wall s median | wall s p90 |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def table_row(where: Sequence[str], t: Tally) -> str:
    right = f"{t.right}/{t.commands} {pct(t.right, t.commands)}" if t.commands else "-"
    wrong, acted, asked, missed = (f"{n}/{t.commands}" if t.commands else "-"
                                   for n in (t.wrong, t.wrong_acted, t.wrong_asked, t.missed))
    taken, talk_acted, talk_asked = (f"{n}/{t.talk}" if t.talk else "-"
                                     for n in (t.taken, t.taken_acted, t.taken_asked))
    return (f"| {' | '.join(where)} | {right} | {wrong} | {acted} | {asked} | {missed} | {taken} | {talk_acted} | "
            f"{talk_asked} | {quantile(t.cpu, 50)} | {quantile(t.cpu, 90)} | {quantile(t.seconds, 50)} | "
            f"{quantile(t.seconds, 90)} |")


def quantile(values: Sequence[float], q: float) -> str:
    return f"{float(np.percentile(values, q)):.3f}" if values else "-"


def pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def checked_table_talk(games: dict[str, SentenceSet], lines: Sequence[tuple[str, str | None]]
                       ) -> list[tuple[str, str | None]]:
    """The lines that are no command of any game they can be heard in (a benchmark error else)."""
    for text, tag in lines:
        for game, sentences in games.items():
            if tag in (None, game) and sentences.match(sentences.words(text)) is not None:
                raise SystemExit(f"table talk {text!r} is a command of {game}: {sentences.match(text)}")
    return list(lines)


# ------------------------------------------------------------------ sessions of play (--session K)

def session_voices(sets: Sequence[str], per_family: int) -> list[Speaker]:
    """The synthetic voices that play sessions: the first ``per_family`` Piper and espeak-ng voices
    of each set asked for (each says every sampled command of every game)."""
    chosen: list[Speaker] = []
    for name, voices in (("tuning", TUNING_SPEAKERS), ("held-out", HELD_OUT_SPEAKERS)):
        if name in sets:
            for engine in ("piper", "espeak"):
                chosen.extend([v for v in voices if v.engine == engine][:max(per_family, 1)])
    return chosen


def sweep_table(swept: Sequence[Swept], current: tuple[float, float]) -> str:
    lines = ["| SAME_DISTANCE | WORD_MARGIN | commands right | right, asked first | WRONG | wrong, acted on "
             "| wrong, asked first | missed | table talk taken | talk acted on |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for take, ask, t, questions in swept:
        mark = " (as run)" if (take, ask) == current else ""
        lines.append(f"| {take:g}{mark} | {ask:g} | {t.right}/{t.commands} | {questions} | {t.wrong} | "
                     f"{t.wrong_acted} | {t.wrong_asked} | {t.missed} | {t.taken}/{t.talk} | {t.taken_acted} |")
    return "\n".join(lines)


def result_row(game: str, sentences: SentenceSet, result: Final, expected: Command | None, cpu: float,
               seconds: float) -> dict[str, Any]:
    """A clip's result as the plain run keeps it (tallied ``as_played``), with what ``replay`` needs."""
    got = result.command if isinstance(result, Transcript) else None
    return {"ok": same_move(game, got, expected) if expected is not None else got is None,
            "got": f"{got.intent} {dict(got.slots)}" if got is not None else "nothing",
            "expected": f"{expected.intent} {dict(expected.slots)}" if expected is not None else None,
            "doubted": isinstance(result, Doubted) and result.command is not None,
            "asked": asked_first(sentences, result), "heard": result.heard, "cpu": cpu, "seconds": seconds,
            "not_allowed": isinstance(result, NotAllowedNow),
            "asked_if_doubted": got is not None and asked_first(sentences, Doubted(result.text, command=got))}


def run_sessions(engine: str, settings: HearingSettings, games: dict[str, SentenceSet],
                 moments: dict[str, Counter[frozenset[str]] | None], sessions: dict[Speaker, list[SessionItem]],
                 learn: int, maker: ClipMaker, noises: Noises, conditions: Sequence[Condition],
                 verbose: bool, rows_file: Path | None = None) -> dict[str, Any]:
    """Each voice's session in each condition, with one ``TableVoices`` for the session shared by
    that voice's ears of every game: its first ``learn`` commands confirmed as a player would (the
    command heard: confirmed, acted on or a yes to its question; missed or wrong: said again once,
    a second take, confirmed when right; at most twice ``learn`` commands said), the rest counted
    with learning on (the session's ears, still confirming what they hear right, as play does) and
    off (what the cascade decided before the Learned stage: the same clip heard once; heard again by
    an ear without the voices when the stage changed a decision, which may change how the clip's
    utterances end). ``rows_file``: each counted clip's row written there (JSON lines: ``sweep``
    replays them)."""
    voices = TableVoices()
    on = {game: open_ear(settings, sentences, engine=engine, fallback=False, voices=voices)
          for game, sentences in games.items()}
    off = {game: open_ear(settings, sentences, engine=engine, fallback=False) for game, sentences in games.items()}
    if any(ear.second is None or ear.second.voices is None for ear in on.values()):
        raise SystemExit(f"{engine}: no Whisper, or hearing.learn off: nothing learns")
    steps: list[tuple[str, str, float, list[float] | None]] = []
    for ear in (*on.values(), *off.values()):
        setattr(ear, "decide", steps_kept(ear, steps))  # noqa: B010 (the instance's, for this run)

    def listen(ear: Any, game: str, expected: Command | None, clip: np.ndarray) -> tuple[Final, float, float]:
        ear.set_intents(grammar_key(moments[game], games[game], expected))
        steps.clear()
        cpu_start, start = time.process_time(), time.perf_counter()
        result = ear.hear(clip)
        return result, time.process_time() - cpu_start, time.perf_counter() - start

    tuning = set(TUNING_VOICES)
    rows: list[dict[str, Any]] = []
    learnt: dict[tuple[str, str], tuple[int, int, int]] = {}  # (condition, voice): confirmed, said, second takes
    total = len(conditions) * sum(len(items) for items in sessions.values())
    done, started = 0, time.monotonic()
    for k, condition in enumerate(conditions):
        for speaker, items in sessions.items():
            voices.forget()
            confirmed = said = again = 0
            voice_set = "tuning" if speaker in tuning else "held-out"
            for game, text, expected, seed in items:
                done += 1
                if done % 50 == 0:
                    rate = (time.monotonic() - started) / done
                    print(f"session: {done} of {total} clips, about {rate * (total - done) / 60:.0f} min left",
                          file=sys.stderr, flush=True)
                sentences = games[game]
                clip = make_clip(maker, text, speaker, condition, noises, seed + k)
                result, cpu, seconds = listen(on[game], game, expected, clip)
                if expected is not None and confirmed < learn and said < 2 * learn:  # the learning phase
                    said += 1
                    confirm = confirmable(game, sentences, result, expected)
                    if confirm is None:
                        again += 1
                        retake = make_clip(maker, text, second_take(speaker), condition, noises, seed + k + 7919)
                        confirm = confirmable(game, sentences, listen(on[game], game, expected, retake)[0], expected)
                    if confirm is not None and on[game].confirm(*confirm):
                        confirmed += 1
                    continue
                learned = [s for s in steps if s[0] == "learned"]
                verdicts = [verdict for _, verdict, _, _ in learned]
                nearest = voices.last
                on_row = result_row(game, sentences, result, expected, cpu, seconds)
                if any(v.startswith(("took", "asked")) for v in verdicts):  # the stage changed a decision
                    plain, off_cpu, off_seconds = listen(off[game], game, expected, clip)
                    off_row = {**result_row(game, sentences, plain, expected, off_cpu, off_seconds),
                               "heard_again": True}
                else:
                    spent = sum(s for _, _, s, _ in learned)
                    off_row = {**on_row, "cpu": cpu - spent, "seconds": seconds - spent}
                rows.append({"game": game, "condition": condition.name, "voice": label(speaker),
                             "family": family(speaker), "set": voice_set, "text": text,
                             "expected": on_row["expected"], "on": on_row, "off": off_row, "learned": verdicts,
                             "nearest": None if nearest is None else {
                                 "sentence": nearest.sentence, "margin": round(nearest.margin, 4),
                                 "distance": round(nearest.distance, 4), "words": nearest.words,
                                 "command": f"{nearest.command.intent} {dict(nearest.command.slots)}",
                                 "ok": (same_move(game, nearest.command, expected) if expected is not None
                                        else False),
                                 "asked_if_doubted": asked_first(sentences, Doubted(nearest.sentence,
                                                                                    command=nearest.command))}})
                if expected is not None:  # play goes on confirming what it heard right
                    confirm = confirmable(game, sentences, result, expected)
                    if confirm is not None:
                        on[game].confirm(*confirm)
            learnt[(condition.name, label(speaker))] = (confirmed, said, again)
    if rows_file is not None:
        rows_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return session_report(rows, learnt, conditions, learn, verbose)


def print_sweeps(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The margins' sweep (``sweep``, ``choose_margins``) over each voice set's counted rows, printed;
    the figures."""
    report: dict[str, Any] = {}
    for name in ("tuning", "held-out"):
        mine = [r for r in rows if r["set"] == name]
        if not mine:
            continue
        swept = sweep(mine)
        take, ask, best, _ = choose_margins(swept)
        use = "choose the margins on these" if name == "tuning" else "held out: not for choosing"
        print(f"\nthe margins replayed on the {name} sessions' counted clips ({use}; the learning phases and "
              f"confirmations as run): fewest wrong acted on, then most right: SAME_DISTANCE {take:g}, "
              f"WORD_MARGIN {ask:g} ({best.right}/{best.commands} right, {best.wrong_acted} wrong acted on, "
              f"{best.taken_acted} table talk acted on)")
        print(sweep_table(swept, (learning.SAME_DISTANCE, learning.WORD_MARGIN)))
        report[f"sweep_{name}"] = {"same_distance": take, "word_margin": ask,
                                   "grid": [{"same_distance": t, "word_margin": a, "right_asked_first": q,
                                             **{k: v for k, v in tally_json(s).items() if "_s" not in k}}
                                            for t, a, s, q in swept]}
    return report


def session_table(rows: Sequence[dict[str, Any]], conditions: Sequence[Condition]
                  ) -> tuple[str, list[dict[str, Any]]]:
    """Learning off against on, per condition, family and set (held-out first): the tallies, and the
    share of the off-run's misses the on-run gets right."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["condition"], row["family"], row["set"])].append(row)
        groups[("every condition", "every family", row["set"])].append(row)
    order = {c.name: i for i, c in enumerate(conditions)}
    head = TABLE_HEAD.replace("| set |", "| set | learning |", 1).replace(
        "|\n|---", "| right, asked first | off's misses right |\n|---")
    lines = [head + "---|---|---|"]
    figures = []
    for where in sorted(groups, key=lambda w: (w[2] != "held-out", order.get(w[0], 99), w[1])):
        tallies, questions = {}, {}
        for side in ("off", "on"):
            tally = Tally()
            for row in groups[where]:
                played = as_played(row[side])
                tally.add(row["expected"] is not None, played["ok"], played["got"] != "nothing", row[side]["seconds"],
                          row[side]["cpu"], played["asked"])
            tallies[side] = tally
            questions[side] = sum(r["expected"] is not None and as_played(r[side])["ok"] and as_played(r[side])["asked"]
                                  for r in groups[where])
        missed = [r for r in groups[where] if r["expected"] is not None and as_played(r["off"])["got"] == "nothing"]
        recovered = sum(as_played(r["on"])["ok"] for r in missed)
        share = f"{recovered}/{len(missed)} {pct(recovered, len(missed))}" if missed else "-"
        for side, tally in tallies.items():
            asked = f"{questions[side]}/{tally.commands}" if tally.commands else "-"
            lines.append(table_row((*where, side), tally) + f" {asked} |" + (f" {share} |" if side == "on" else " |"))
            figures.append({"condition": where[0], "voices": where[1], "set": where[2], "learning": side,
                            **tally_json(tally), "right_asked_first": questions[side],
                            **({"off_misses": len(missed), "off_misses_right": recovered}
                                                   if side == "on" else {})})
    return "\n".join(lines), figures


def session_report(rows: Sequence[dict[str, Any]], learnt: dict[tuple[str, str], tuple[int, int, int]],
                   conditions: Sequence[Condition], learn: int, verbose: bool) -> dict[str, Any]:
    """The session table, the learning phases, the Learned stage's decisions and the margins' sweep
    on the tuning rows (printed), and the figures."""
    print(f"\n== sessions: learning off against on, the commands after the first {learn} confirmed ==")
    table, figures = session_table(rows, conditions)
    print(table)
    print("\nlearning phase (commands confirmed of those said; said again after a miss or wrong command):")
    for (condition, voice), (confirmed, said, again) in learnt.items():
        print(f"  {condition:<14} {voice:<40} {confirmed} confirmed of {said} said ({again} said again)")
    changed = [r for r in rows if any(v.startswith(("took", "asked")) for v in r["learned"])]
    print(f"\nthe Learned stage changed {len(changed)} of {len(rows)} counted clips' decisions "
          f"(SAME_DISTANCE {learning.SAME_DISTANCE:g}, WORD_MARGIN {learning.WORD_MARGIN:g}):")
    for r in changed:
        print(f"  [{r['condition']}; {r['voice']}] {r['text']!r}: off {r['off']['got']} "
              f"({'right' if r['off']['ok'] else 'wrong'}{', doubted' if r['off']['doubted'] else ''}) -> on "
              f"{r['on']['got']} ({'right' if r['on']['ok'] else 'wrong'}{', asked' if r['on']['asked'] else ''})"
              f"; {'; '.join(r['learned'])}")
    single = [r for r in rows if not r["off"].get("heard_again")]
    agree = sum(replay(r["off"], r["nearest"], learning.SAME_DISTANCE, learning.WORD_MARGIN)["got"]
                == r["on"]["got"] for r in single)
    print(f"replay check: the rule replayed at the margins run gives the on-run's command on {agree} of "
          f"{len(single)} clips heard once (the others: a clip of more than one utterance)")
    report: dict[str, Any] = {"session": learn, "same_distance": learning.SAME_DISTANCE,
                              "word_margin": learning.WORD_MARGIN, "rows": figures,
                              "learning_phase": [{"condition": c, "voice": v, "confirmed": n, "said": s, "again": a}
                                                 for (c, v), (n, s, a) in learnt.items()]}
    report.update(print_sweeps(rows))
    if verbose:
        print("\ncounted clips, off -> on:")
        for r in rows:
            print(f"  [{r['condition']}; {r['voice']}] {r['text']!r}: {r['off']['got']} -> {r['on']['got']}; "
                  f"{'; '.join(r['learned']) or '-'}")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="all", help=f"all, or one of {', '.join(GAMES)}")
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"comma-separated, of {', '.join(ENGINES)}")
    parser.add_argument("--per-intent", type=int, default=2, help="sentences per intent")
    parser.add_argument("--voices", type=int, default=1,
                        help="voices of each set (tuning, held-out) saying each command; 0: every voice")
    parser.add_argument("--talk-voices", type=int, default=2,
                        help="voices of each set saying each table-talk line; 0: every voice")
    parser.add_argument("--talk-every", type=int, default=1, help="only every Nth table-talk line")
    parser.add_argument("--sets", default=",".join(SETS), help="voice sets: tuning,held-out (comma-separated)")
    parser.add_argument("--fsdd", type=Path, default=FSDD_DIR,
                        help="the FSDD recordings (real people saying zero, one, two); '' : none")
    parser.add_argument("--fsdd-entries", type=int, default=48,
                        help="button entries per game said by every recorded speaker of each set")
    parser.add_argument("--quick", action="store_true",
                        help="1 sentence per intent said by 1 voice, 16 table-talk lines said by 1 voice of each "
                        f"set, {len(QUICK_CONDITIONS)} conditions ({', '.join(QUICK_CONDITIONS)})")
    parser.add_argument("--conditions", help="comma-separated condition names to run (default: all but the "
                        "5 dB ones), e.g. 'clean,white 20 dB'")
    parser.add_argument("--ablation", action="store_true",
                        help="the hybrid with each stage of its cascade switched off in turn (ABLATION)")
    parser.add_argument("--ablation-rows", help="with --ablation: only these rows (comma-separated: "
                        f"{', '.join(stage for stage, _, _ in ABLATION)})")
    parser.add_argument("--cache", type=Path, help="clip and result cache folder (default: a temp folder)")
    parser.add_argument("--count", action="store_true", help="only count the clips the run would hear")
    parser.add_argument("--shuffle", action="store_true",
                        help="hear the clips in a seeded random order (not grouped by grammar): a run stopped "
                        "part-way has heard a fair sample")
    parser.add_argument("--kept-only", action="store_true",
                        help="report only the clips whose results are kept under --cache (a run stopped "
                        "part-way), hearing none")
    parser.add_argument("--fresh", action="store_true", help="do not reuse results kept under --cache")
    parser.add_argument("--said-again", action="store_true",
                        help="say each command missed again at once (a second take by the same voice) and count "
                        "what the live loop makes of the two (heard, asked about after two misses, nothing); "
                        "results heard before (without --fresh) are not said again")
    parser.add_argument("--session", type=int, metavar="K",
                        help="sessions of play (issue 61): per voice, its first K commands confirmed as a player "
                        "would, the rest counted with learning on and off (--voices: Piper and espeak-ng voices of "
                        "each set, each saying every command; the recorded people their button entries)")
    parser.add_argument("--session-rows", type=Path, help="with --session: write each counted clip's row "
                        "(off, on, the Learned stage's nearest sentence and margin) to this JSON-lines file")
    parser.add_argument("--session-sweep", type=Path, metavar="ROWS",
                        help="replay the Learned stage's rule over a --session-rows file at every pair of margins "
                        "(SWEEP_MARGINS) and print the tally of each, per voice set (hears nothing)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--results", default=None,
                        help="write bench/results/NAME.md (default: bench_accuracy, or "
                        "bench_accuracy_ablation with --ablation; '' : none)")
    parser.add_argument("--note", action="append", default=[], help="a line for the results file's header")
    parser.add_argument("--config", help="settings file (default: ./config.yaml)")
    parser.add_argument("--all-intents", action="store_true",
                        help="hear every clip with every sentence of its game (not the moment's grammar)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every error")
    args = parser.parse_args(argv)
    name = args.results if args.results is not None else (
        "bench_accuracy_ablation" if args.ablation else "bench_accuracy_session" if args.session is not None
        else "bench_accuracy")
    title = ("Ablation of the hybrid's cascade" if args.ablation
             else "Sessions of play: hearing that learns the table's voices, learning off against on"
             if args.session is not None
             else "Command accuracy, wrong commands and table talk, per voice family and condition")
    results = Results(name or "unused", title, ["bench/bench_accuracy.py", *(sys.argv[1:] if argv is None else argv)])
    results.notes.extend(args.note)
    def checkpoint(figures: dict[str, Any], table: str) -> None:
        if name:
            results.figures = figures
            results.write(extra="\n(partial: the configurations heard so far)\n" + table)

    with results.capture():
        code, report = run(args, parser, checkpoint)
    if code == 0 and report is not None:
        results.figures = report
        if args.json is not None:
            args.json.write_text(json.dumps({"argv": results.argv, **report}, indent=1))
        if name:
            results.write()
    return code


def run(args: argparse.Namespace, parser: argparse.ArgumentParser,
        checkpoint: Callable[[dict[str, Any], str], None] | None = None) -> tuple[int, dict[str, Any] | None]:
    if args.session_sweep is not None:
        rows = [json.loads(line) for line in args.session_sweep.read_text().splitlines() if line.strip()]
        print_sweeps(rows)
        return 0, None
    config = Config.load(args.config)
    settings = HearingSettings.from_config(config)
    names = list(GAMES) if args.game == "all" else [args.game]
    if any(name not in GAMES for name in names):
        parser.error(f"unknown game {args.game!r}; known: all, {', '.join(GAMES)}")
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    if not sets or any(s not in SETS for s in sets):
        parser.error(f"--sets: one or both of {', '.join(SETS)}")
    known = {c.name: c for c in (*CONDITIONS, *EXTRA_CONDITIONS)}
    conditions: Sequence[Condition] = CONDITIONS
    if args.quick:
        conditions = [known[c] for c in QUICK_CONDITIONS]
    if args.conditions:
        wanted = [c.strip() for c in args.conditions.split(",")]
        unknown = [c for c in wanted if c not in known]
        if unknown:
            parser.error(f"unknown condition {unknown[0]!r}; known: {', '.join(known)}")
        conditions = [known[c] for c in wanted]
    fsdd = args.fsdd if str(args.fsdd) not in ("", ".") else None
    if fsdd is not None and not fsdd.is_dir():
        parser.error(f"--fsdd {fsdd}: no such folder (give '' to run without the recorded speakers)")
    per_intent = 1 if args.quick else args.per_intent
    per_set = 1 if args.quick else args.talk_voices
    per_command = -1 if args.quick else args.voices
    games = {name: game_module(name).sentences() for name in names}
    talk = checked_table_talk(games, TABLE_TALK)[::4 if args.quick else max(args.talk_every, 1)]
    engines = ["hybrid"] if args.ablation else [e.strip() for e in args.engines.split(",") if e.strip()]
    if not engines or any(engine not in ENGINES for engine in engines):
        parser.error(f"--engines: one or more of {', '.join(ENGINES)}, comma-separated")
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or Path(tmp)
        maker = BenchClips(cache, fsdd)
        noises = Noises(babble(maker) if not args.count else np.zeros(1), OtherTalkers(maker))
        items: list[tuple[str, str, Command | None]] = []
        for name, sentences in games.items():
            items.extend((name, text, command) for text, command in sample_commands(sentences, per_intent))
        if args.session is not None:
            entries_of = [(game, text, command) for game, sentences in games.items() if fsdd is not None
                          for text, command in sample_entries(sentences, args.fsdd_entries)]
            return 0, sessions(args, settings, engines, games, names, items, entries_of, talk, sets, conditions,
                               maker, noises, fsdd)
        clips: list[Clip] = []
        made = time.monotonic()
        for n, (game, text, expected) in enumerate(items):
            for speaker in voices_for(n, per_command, sets):
                if not args.count:
                    maker.say(text, speaker)  # every voice's clip made (and cached) once, up front
                clips.extend((game, condition, text, speaker, expected, n * 31 + k)
                             for k, condition in enumerate(conditions))
        entries: list[tuple[str, str, Command]] = []
        if fsdd is not None:
            for name, sentences in games.items():
                entries.extend((name, text, command) for text, command in sample_entries(sentences, args.fsdd_entries))
        for m, (game, text, expected) in enumerate(entries):
            n = len(items) + m
            for speaker in fsdd_voices(sets):
                if not args.count:
                    maker.say(text, speaker)
                clips.extend((game, condition, text, speaker, expected, n * 31 + k)
                             for k, condition in enumerate(conditions))
        for line, (text, tag) in enumerate(talk):
            n = len(items) + len(entries) + line
            for v, speaker in enumerate(voices_for(n, per_set, sets)):
                if not args.count:
                    maker.say(text, speaker)
                clips.extend((table_talk_games(line, tag, names, v), condition, text, speaker, None, n * 31 + k)
                             for k, condition in enumerate(conditions))
        if args.count:
            talk_clips = sum(c[4] is None for c in clips)
            print(f"{len(items)} commands, {len(entries)} button entries said by recorded people, {len(talk)} "
                  f"table-talk lines: {len(clips)} clips ({len(clips) - talk_clips} commands, {talk_clips} table "
                  f"talk)")
            for name in names:
                print(f"  {name:<12} {sum(c[0] == name for c in clips)} clips")
            return 0, None
        # One grammar after another: switching a recognizer's grammar is not free.
        moments = {name: None if args.all_intents else listening_moments(name) for name in names}
        clips.sort(key=lambda c: (c[0], sorted(grammar_key(moments[c[0]], games[c[0]], c[4]))))
        if args.shuffle:
            random.Random(5).shuffle(clips)
        said = ("each by one voice of either set" if per_command < 0
                else f"each by {per_command or 'every'} voice(s) of each set")
        print(f"{len(items)} commands ({said}), {len(entries)} button entries (each said by every recorded "
              f"speaker of each set) and {len(talk)} table-talk lines (each by {per_set or 'every'} of each set) "
              f"from {', '.join(names)}; voice sets: {', '.join(sets)}; {len(conditions)} conditions: "
              f"{len(clips)} clips ({sum(c[4] is None for c in clips)} table talk), made in "
              f"{time.monotonic() - made:.0f} s. auto picks: {choose(settings).note}")
        print("voices:  tuning: " + "; ".join(label(s) for s in TUNING_VOICES if "tuning" in sets))
        print("       held-out: " + "; ".join(label(s) for s in HELD_OUT_VOICES if "held-out" in sets))
        if fsdd is not None:
            print(f"recorded people: the Free Spoken Digit Dataset (FSDD, CC BY-SA 4.0; {fsdd}): tuning "
                  f"{', '.join(FSDD_TUNING)}; held out {', '.join(FSDD_HELD_OUT)}. A button entry is one "
                  "speaker's takes of zero/one/two joined by 0.15-0.35 s pauses, heard in its moment's grammar")
        print(f"conditions: {', '.join(c.name for c in conditions)} (reverb: RT60 {REVERB_RT60} s, "
              f"direct-to-reverberant {REVERB_DRR_DB:g} dB; babble: seven talkers at once; talkers: one to "
              "three other people across the table, other voices saying other sentences). CPU s: process "
              "time of the hearing of one utterance, every thread (Whisper's) counted; wall s inflated by a "
              "busy machine")
        for name in names:
            game_moments = moments[name]
            if game_moments is None:
                print(f"{name} grammar: all {len(games[name].intents)} intents")
                continue
            print(f"{name} grammar: the moment of play where the command is asked (intents listened for):")
            for intent in [*games[name].intents, None]:
                allowed = grammar_for(game_moments, intent)
                listened = " ".join(sorted(allowed)) if allowed else "all (never asked in random play)"
                print(f"  {intent or 'table talk':<16} {listened}")

        def hear(engine: str, engine_settings: HearingSettings, engine_config: Config,
                 quiet: bool = False, reuse: tuple[str, dict[str, dict[str, Any]]] | None = None
                 ) -> dict[str, Any] | None:
            fingerprint = code_fingerprint(engine_settings, engine_config.path)
            kept = None
            if args.cache is not None:
                kept = args.cache / "results" / f"{engine}-{fingerprint}.jsonl"
                kept.parent.mkdir(parents=True, exist_ok=True)
                if args.fresh:
                    kept.unlink(missing_ok=True)
            return run_engine(engine, engine_settings, games, moments, clips, maker, noises, conditions,
                              args.verbose, kept, quiet, args.kept_only, reuse, args.said_again)

        if args.ablation:
            rows = [r.strip() for r in args.ablation_rows.split(",")] if args.ablation_rows else None
            return 0, ablation(config, settings, hear, checkpoint, rows)
        report = []
        for engine in engines:
            summary = hear(engine, settings, config)
            if summary is not None:
                summary.pop("rows_by_key", None)
                report.append(summary)
    return 0, {"engines": report}


def sessions(args: argparse.Namespace, settings: HearingSettings, engines: Sequence[str],
             games: dict[str, SentenceSet], names: Sequence[str], items: Sequence[tuple[str, str, Command | None]],
             entries: Sequence[tuple[str, str, Command]], talk: Sequence[tuple[str, str | None]],
             sets: Sequence[str], conditions: Sequence[Condition], maker: ClipMaker, noises: Noises,
             fsdd: Path | None) -> dict[str, Any] | None:
    """--session K: each voice's session (``session_order``) heard by ``run_sessions``."""
    if len(engines) != 1 or engines[0] not in ("hybrid", "vosk-hybrid"):
        raise SystemExit("--session: one engine, hybrid or vosk-hybrid (learning is Whisper's stage)")
    synthetic = session_voices(sets, args.voices)
    by_voice: dict[Speaker, list[SessionItem]] = {}
    for v, speaker in enumerate(synthetic):
        said = [(game, text, expected, n * 31) for n, (game, text, expected) in enumerate(items)]
        mine = [s for s in synthetic if (s in TUNING_SPEAKERS) == (speaker in TUNING_SPEAKERS)]
        per = max(args.talk_voices, 1)
        lines = [(table_talk_games(line, tag, names, v), text, None, (len(items) + len(entries) + line) * 31)
                 for line, (text, tag) in enumerate(talk)
                 if any(mine[(line * per + j) % len(mine)] == speaker for j in range(per))]
        by_voice[speaker] = session_order(said, lines, args.session, seed=17 + v)
    for s, speaker in enumerate(fsdd_voices(sets) if fsdd is not None else []):
        said = [(game, text, expected, (len(items) + m) * 31) for m, (game, text, expected) in enumerate(entries)]
        by_voice[speaker] = session_order(said, [], args.session, seed=101 + s)
    for speaker, order in by_voice.items():
        for _, text, _, _ in order:
            maker.say(text, speaker)  # made (and cached) once, up front
    moments = {name: None if args.all_intents else listening_moments(name) for name in names}
    count = sum(len(order) for order in by_voice.values())
    print(f"sessions of play (--session {args.session}): {len(by_voice)} voices, {count} clips a condition "
          f"({sum(e is None for o in by_voice.values() for _, _, e, _ in o)} table talk); {len(conditions)} "
          f"conditions: {', '.join(c.name for c in conditions)}. auto picks: {choose(settings).note}")
    for speaker, order in by_voice.items():
        print(f"  {label(speaker)} ({family(speaker)}; {'tuning' if speaker in TUNING_VOICES else 'held-out'}): "
              f"{sum(e is not None for _, _, e, _ in order)} commands, {sum(e is None for _, _, e, _ in order)} "
              f"table talk; games in order: {', '.join(dict.fromkeys(g for g, _, e, _ in order if e is not None))}")
    print("Each voice's session has one TableVoices, shared by its ears of every game. Learning phase: the "
          f"commands until {args.session} are confirmed (at most {2 * args.session} said): one heard as said is "
          "confirmed (acted on, or doubted and costly: asked, answered yes); missed or wrong, a second take is "
          "heard and confirmed if right. Counted: the rest, learning on (the session's ears, which go on "
          "confirming the commands they hear right, as play does) and off (the cascade's decision before the "
          "Learned stage on the same hearing; heard again without the voices when the stage changed it). "
          "Table talk is counted wherever it falls. CPU s: process time of the hearing of one utterance.")
    if args.count:
        return None
    return run_sessions(engines[0], settings, games, moments, by_voice, args.session, maker, noises, conditions,
                        args.verbose, args.session_rows)

def with_overrides(config: Config, overrides: dict[str, Any]) -> Config:
    """``config`` with the dotted keys of ``overrides`` set."""
    data = copy.deepcopy(config.data)
    for key, value in overrides.items():
        node = data
        *parents, last = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return Config(data, {}, config.path, [])


def ablation(config: Config, settings: HearingSettings,
             hear: Callable[..., dict[str, Any] | None],
             checkpoint: Callable[[dict[str, Any], str], None] | None = None,
             only: Sequence[str] | None = None) -> dict[str, Any]:
    """The hybrid as configured, then with each ``ABLATION`` stage switched off in turn, and the
    first pass alone: the change each makes in commands right, WRONG, table talk taken and CPU.
    A clip whose hearing that stage did not change is not heard again without it
    (``unchanged_without``).
    ``only``: the ``ABLATION`` rows to run (default: all). ``checkpoint`` is given the figures and
    the table after each configuration."""
    rows: list[tuple[str, str, dict[str, Any]]] = []

    def figures() -> dict[str, Any]:
        return {"ablation": [{"stage": stage, "settings": what, **t} for stage, what, t in rows]}

    known = [stage for stage, _, _ in ABLATION]
    unknown = [name for name in only or () if name not in known]
    if unknown:  # before the long base run, not after it
        raise SystemExit(f"--ablation-rows: no row {', '.join(map(repr, unknown))}; the rows: {', '.join(known)}")
    base = hear("hybrid", settings, config, True)
    if base is None:
        raise SystemExit("the hybrid cannot be opened here")
    rows.append(("hybrid as configured", "", base["totals"]["all"]))
    for stage, overrides, name in ABLATION:
        if only is not None and stage not in only:
            continue
        changed = with_overrides(config, overrides)
        if changed.problems:
            raise SystemExit(f"ablation {stage}: {changed.problems}")
        print(f"ablation: {stage} ({overrides})", file=sys.stderr, flush=True)
        reuse = (name, base["rows_by_key"]) if name is not None else None
        summary = hear("hybrid", HearingSettings.from_config(changed), changed, True, reuse)
        if summary is not None:
            what = ", ".join(f"{k} {json.dumps(v)}" for k, v in overrides.items())
            rows.append((f"without {stage}", what, summary["totals"]["all"]))
            if checkpoint is not None:
                checkpoint(figures(), ablation_table(rows))
    alone = hear(ABLATION_ALONE, settings, config, True)
    if alone is not None:
        rows.append((f"first pass alone ({ABLATION_ALONE}, no Whisper)", "engine", alone["totals"]["all"]))
    print(ablation_table(rows))
    print("A stage pays when switching it off loses commands right or adds WRONG commands or table talk "
          "taken; what it costs is the CPU it saves when off.")
    return figures()


def ablation_table(rows: Sequence[tuple[str, str, dict[str, Any]]]) -> str:
    """The ablation's rows as a table, each with its change from the first (the hybrid as configured)."""
    ref = rows[0][2]
    lines = ["", "| hybrid | settings | commands right | WRONG | wrong, acted on | wrong, asked first | missed "
             "| table talk taken | talk acted on | CPU s median | CPU s p90 | change: right | change: WRONG "
             "| change: wrong acted on | change: talk taken | change: CPU p90 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for stage, what, t in rows:
        cpu = "-" if t["cpu_p90_s"] is None else f"{t['cpu_p90_s']:.3f}"
        median = "-" if t["cpu_median_s"] is None else f"{t['cpu_median_s']:.3f}"
        delta_cpu = ("-" if t["cpu_p90_s"] is None or ref["cpu_p90_s"] is None
                     else f"{t['cpu_p90_s'] - ref['cpu_p90_s']:+.3f}")
        lines.append(f"| {stage} | {what} | {t['right']}/{t['commands']} | {t['wrong']} | {t['wrong_acted_on']} | "
                     f"{t['wrong_asked_first']} | {t['missed']} | {t['table_talk_taken']}/{t['table_talk']} | "
                     f"{t['table_talk_acted_on']} | {median} | {cpu} | {t['right'] - ref['right']:+d} | "
                     f"{t['wrong'] - ref['wrong']:+d} | {t['wrong_acted_on'] - ref['wrong_acted_on']:+d} | "
                     f"{t['table_talk_taken'] - ref['table_talk_taken']:+d} | {delta_cpu} |")
    return "\n".join(lines) + "\n"


def grammar_key(moments: Counter[frozenset[str]] | None, sentences: SentenceSet,
                expected: Command | None) -> Iterable[str]:
    if moments is None:
        return sentences.intents
    return grammar_for(moments, expected.intent if expected else None) or sentences.intents


if __name__ == "__main__":
    sys.exit(main())
