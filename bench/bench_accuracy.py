"""Command accuracy of each recognizer, and the table talk it takes, on a generated spoken set.

    python bench/bench_accuracy.py [--game all] [--quick]
                                   [--engines pocketsphinx,vosk,whisper,hybrid]
                                   [--conditions 'clean,white 20 dB'] [--voices 1] [--talk-voices 2]
                                   [--cache DIR] [--json FILE] [--count] [-v]

Commands are sampled (seeded) from each game's own sentence expansion (``--game all``, the
default: every game; or one game's name), ``--per-intent`` of every intent. Table talk
(``TABLE_TALK``: chatter, and lines holding command words that are not commands, such as
"can you pass me the chips" or "spin me round") must give no command. Each command is said
by ``--voices`` voices of ``TUNING_SPEAKERS`` and as many of ``HELD_OUT_SPEAKERS``
(``tests.support.spoken``), each table-talk line by ``--talk-voices`` of each, taken in
turn so every voice says about as many lines; each clip is heard in every condition: clean,
white noise and babble (seven other talkers) at 20 and 10 dB SNR, in a reverberant room
(RT60 0.6 s, synthetic), and in that room with babble at 10 dB (``--conditions`` can also
name 'white 5 dB' and 'babble 5 dB').

Each command is heard with the grammar of a moment of play where it is asked, as in play
(the recognizer only listens for what the game state allows): the moments are found by
seeded random play through the real session (and scenes played to on purpose for the few it
does not reach: the Virus found, Prologue's points asked), and a command is decoded under
the largest one that allows it, the hardest for it; table talk under the largest of all of the game it
is heard in (lines about one game's words in that game, the others in each game in turn).
With --all-intents every clip is heard with every sentence of its game (the worst case).

For each engine (``--engines``; one that cannot be opened here is listed as not available)
and each condition it prints: commands right, table talk taken, and the median and 90th
percentile seconds spent hearing one utterance (``Ear.hear`` on the whole clip through the
real engine; wall-clock, so a busy machine inflates it), for the tuning voices, the
held-out voices and all; then per game and per voice. Every engine runs through
``open_ear`` on its own: nothing is shared between engines (the hybrid's Whisper runs
inside the hybrid's Ear). --json FILE also writes the figures.

Clips are cached under --cache (default: a temp folder). With --cache, each engine's
results are also kept (``DIR/results/``) as they come, keyed by the clip (with its noise
seed), its grammar, the settings, the hearing code and the sentence files
(``code_fingerprint``): a run stopped part-way resumes where it stopped, and a change to any
of those starts afresh. --fresh ignores kept results. --count only counts the clips.

Sizes and durations, measured on this 2-core machine while other work shared it (load
about 5; an idle machine takes roughly half): mean wall-clock seconds per clip were
PocketSphinx 0.83, Whisper 0.85, the hybrid 1.67 (the card game's long sentences cost the
most), and the clips of a full run take about 5 minutes to make once.

    --quick   72 commands (1 per intent) each said by one voice, 16 table-talk lines by 1+1
              voices, 4 conditions (clean, white 10 dB, babble 10 dB, reverb): 416 clips
              (128 table talk). Measured: PocketSphinx 5 min, Whisper 6, hybrid 11 (24 min
              for all engines, clips included).
    default   130 commands (2 per intent) by 1+1 voices, 64 table-talk lines by 2+2 voices,
              7 conditions: 3,612 clips (1,792 table talk). Estimated: PocketSphinx 50 min,
              Whisper 50, hybrid 100: about 3.5 hours for all engines on a shared machine,
              under 2 hours on an idle one. One engine at a time (``--engines hybrid``) with
              the same --cache is the same run in pieces, and a stopped run resumes.
              ``--voices 2`` (5,432 clips) about 5 hours shared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.box import ASLEEP_COMMANDS, LISTENING_COMMANDS, PHONE_COMMANDS  # noqa: E402
from assistant.config import PROJECT_ROOT, Config  # noqa: E402
from assistant.engine import Command  # noqa: E402
from assistant.games import GAMES, game_module  # noqa: E402
from assistant.games.omega_virus.engine import CommandCenter  # noqa: E402
from assistant.games.omega_virus.state import AVDS, Phase  # noqa: E402
from assistant.hearing import HearingSettings, ModelError, Transcript, choose, open_ear  # noqa: E402
from assistant.sentences import SentenceSet  # noqa: E402
from assistant.session import Heard, PrintAnnouncer, Session  # noqa: E402
from tests.support.spoken import (  # noqa: E402
    HELD_OUT_SPEAKERS,
    TUNING_SPEAKERS,
    ClipMaker,
    Speaker,
    add_noise,
    babble,
    reverberate,
)

ENGINES = ("pocketsphinx", "vosk", "whisper", "hybrid")
REVERB_RT60 = 0.6
REVERB_DRR_DB = 0.0


@dataclass(frozen=True)
class Condition:
    name: str
    noise: str | None = None  # white | babble
    snr_db: float = 0.0
    rt60: float = 0.0         # reverberant room when > 0 (the noise is in the same room)


CONDITIONS = (
    Condition("clean"),
    Condition("white 20 dB", "white", 20),
    Condition("white 10 dB", "white", 10),
    Condition("babble 20 dB", "babble", 20),
    Condition("babble 10 dB", "babble", 10),
    Condition("reverb", rt60=REVERB_RT60),
    Condition("reverb+babble 10", "babble", 10, REVERB_RT60),
)
#: --quick's conditions.
QUICK_CONDITIONS = ("clean", "white 10 dB", "babble 10 dB", "reverb")
#: Only when asked for with --conditions.
EXTRA_CONDITIONS = (Condition("white 5 dB", "white", 5), Condition("babble 5 dB", "babble", 5))

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


def listening_moments(game: str, games: int = 30, steps: int = 200, seed: int = 1) -> Counter[frozenset[str]]:
    """How often each set of allowed intents comes up in seeded random play of ``game``, with
    the box's commands (main menu, volume ...) beside the game's, as in hands-free play without
    phones; the box's own moment after "stop listening", when "start listening" alone is
    listened for; the moments random play does not reach, played to on purpose (``SCENES``:
    the Virus found, Prologue's points asked); and the widest moment with phones as keypads,
    their commands beside it."""
    rng = random.Random(seed)
    seen: Counter[frozenset[str]] = Counter()
    pools: dict[str, list[str]] = {}
    for n in range(games):
        session = box_session(game, seed + n)
        for _ in range(steps):
            if session.game.is_over():
                break
            allowed = session.allowed_intents()
            seen[allowed] += 1
            if rng.random() < 0.2:
                session.advance(rng.uniform(0.5, 20.0))
                continue
            intent = rng.choice(sorted(allowed - LISTENING_COMMANDS))  # the game is played, not the box
            if intent not in pools:
                pools[intent] = [text for text, _ in session.sentences.expand([intent], limit=500)]
            if pools[intent]:
                session.hear(rng.choice(pools[intent]))
        asleep = ASLEEP_COMMANDS & frozenset(session.sentences.intents)
        if asleep:
            seen[asleep] += 1  # once a game: a player said "stop listening"
    for scene in SCENES.get(game, ()):
        seen[scene(seed)] += 1  # moments random play does not reach, played to on purpose
    phones = PHONE_COMMANDS & frozenset(session.sentences.intents)
    if phones and seen:
        # with phones as keypads, the box listens for their commands beside each moment's
        widest = max(seen, key=lambda allowed: (len(allowed), sorted(allowed)))
        seen[widest | phones] += 1
    return seen


def box_session(game: str, seed: int) -> Session:
    """A started session of ``game`` listening as the box does without phones: its own
    commands (main menu, volume ...) beside the game's."""
    session = Session.new(game, seed, {}, PrintAnnouncer(lambda line: None), None)
    session.box_commands = LISTENING_COMMANDS - PHONE_COMMANDS
    session.start()
    return session


def _heard(session: Session, *sentences: str) -> None:
    for text in sentences:
        if session.hear(text) is not Heard.ACCEPTED:
            raise AssertionError(f"{session.game_name}: {text!r} was not taken")


def _omega_virus_found(seed: int) -> frozenset[str]:
    """The Command Center when the Virus is found: "terminate" is asked. Signed on by voice; the
    hand that can terminate is dealt (collecting it takes longer than random play lasts)."""
    from tests.ov_helpers import give

    session = box_session("omega-virus", seed)
    _heard(session, "skill zero", "one two", "skip", "skip", "skip")
    cc = session.game
    assert isinstance(cc, CommandCenter) and cc.mover is not None, cc.phase
    give(cc, cc.mover[0], "red card", "blue card", "yellow card", *AVDS)
    room = " ".join({"0": "zero", "1": "one", "2": "two"}[digit] for digit in cc.virus_room)
    _heard(session, f"explore {room}")
    assert cc.phase is Phase.TERMINATE, cc.phase
    return session.allowed_intents()


def _prologue_points(seed: int) -> frozenset[str]:
    """Prologue scoring with the points asked (scoring cards worth "ask", the default): a round
    played, done, the winner named, then the first scoring card's taker."""
    session = box_session("prologue", seed)
    _heard(session, "ready")
    session.advance(60.0)
    _heard(session, "done", "player one", "player two")
    allowed = session.allowed_intents()
    assert "points" in allowed, allowed
    return allowed


#: Moments seeded random play does not reach, played to on purpose, per game.
SCENES: dict[str, tuple[Callable[[int], frozenset[str]], ...]] = {
    "omega-virus": (_omega_virus_found,),
    "prologue": (_prologue_points,),
}


def grammar_for(moments: Counter[frozenset[str]], intent: str | None) -> frozenset[str] | None:
    """The largest moment that allows ``intent`` (for None, table talk: of all moments without
    phones); None if none does."""
    fitting = [allowed for allowed in moments
               if (intent in allowed if intent is not None else not allowed & PHONE_COMMANDS)]
    return max(fitting, key=lambda allowed: (len(allowed), sorted(allowed))) if fitting else None


def voices_for(item: int, per_set: int) -> list[Speaker]:
    """The voices that say line number ``item``: ``per_set`` of each set, in turn (0: all;
    -1: one voice, of the tuning set for even items and of the held-out set for odd ones)."""
    if per_set < 0:
        voices = HELD_OUT_SPEAKERS if item % 2 else TUNING_SPEAKERS
        return [voices[(item // 2) % len(voices)]]
    chosen: list[Speaker] = []
    for voices in (TUNING_SPEAKERS, HELD_OUT_SPEAKERS):
        k = len(voices) if per_set <= 0 else min(per_set, len(voices))
        chosen.extend(voices[(item * k + j) % len(voices)] for j in range(k))
    return chosen


def table_talk_games(line: int, tag: str | None, games: Sequence[str], voice: int) -> str:
    """The game a table-talk clip is heard in: its own game when it has one and it is run."""
    if tag is not None and tag in games:
        return tag
    return games[(line + voice) % len(games)]


def make_clip(maker: ClipMaker, text: str, speaker: Speaker, condition: Condition, noise: np.ndarray,
              seed: int) -> np.ndarray:
    clip = maker.say(text, speaker)
    if condition.noise is not None:
        clip = add_noise(clip, condition.noise, condition.snr_db, noise, seed=seed)
    if condition.rt60 > 0:
        clip = reverberate(clip, condition.rt60, seed, REVERB_DRR_DB)
    return clip


def code_fingerprint(settings: HearingSettings, config_path: Path | None) -> str:
    """What a result depends on besides its clip and grammar: the hearing code, the sentences
    (``assistant/sentences.py`` and every sentence file) and the settings."""
    digest = hashlib.sha1(repr(sorted(vars(settings).items())).encode())
    package = PROJECT_ROOT / "assistant"
    files = [*(package / "hearing").rglob("*"), package / "sentences.py", *package.rglob("*.yaml")]
    for path in sorted(set(files)):
        if path.is_file() and path.suffix in (".py", ".yaml", ".txt", ".json") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(PROJECT_ROOT)).encode())
            digest.update(path.read_bytes())
    if config_path is not None and config_path.exists():
        digest.update(config_path.read_bytes())
    return digest.hexdigest()[:16]


def clip_key(game: str, condition: Condition, text: str, speaker: Speaker, seed: int, grammar: Iterable[str]) -> str:
    data = [game, condition.name, condition.noise, condition.snr_db, condition.rt60, REVERB_DRR_DB, text,
            speaker.key(), seed, sorted(grammar)]
    return hashlib.sha1(json.dumps(data).encode()).hexdigest()[:20]


@dataclass
class Tally:
    right: list[int] = field(default_factory=lambda: [0, 0])  # commands right, commands
    taken: list[int] = field(default_factory=lambda: [0, 0])  # table talk taken, table talk
    seconds: list[float] = field(default_factory=list)

    def add(self, command: bool, ok: bool, seconds: float) -> None:
        pair = self.right if command else self.taken
        pair[0] += ok if command else not ok
        pair[1] += 1
        self.seconds.append(seconds)


def run_engine(engine: str, settings: HearingSettings, games: dict[str, SentenceSet],
               moments: dict[str, Counter[frozenset[str]] | None], clips: Sequence[Clip], maker: ClipMaker,
               noise: np.ndarray, conditions: Sequence[Condition], verbose: bool,
               results_file: Path | None) -> dict[str, Any] | None:
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
    tuning = set(TUNING_SPEAKERS)
    groups = ("tuning", "held-out", "all")
    table: dict[tuple[str, str], Tally] = defaultdict(Tally)   # (condition, voice group)
    per_game: dict[str, Tally] = defaultdict(Tally)
    per_voice: dict[Speaker, Tally] = defaultdict(Tally)
    errors: list[str] = []
    busy = audio = 0.0
    started = time.monotonic()
    try:
        for n, (game, condition, text, speaker, expected, seed) in enumerate(clips):
            if n and n % 250 == 0:
                rate = (time.monotonic() - started) / n
                print(f"{engine}: {n} of {len(clips)} clips, about {rate * (len(clips) - n) / 60:.0f} min left",
                      file=sys.stderr, flush=True)
            ear = ears[game]
            game_moments = moments[game]
            grammar: Iterable[str]
            if game_moments is None:
                grammar = games[game].intents
            else:
                grammar = grammar_for(game_moments, expected.intent if expected else None) or games[game].intents
            key = clip_key(game, condition, text, speaker, seed, grammar)
            row = done.get(key)
            clip = make_clip(maker, text, speaker, condition, noise, seed)  # made as needed: they are many
            if row is None:
                ear.set_intents(grammar)
                start = time.perf_counter()
                result = ear.hear(clip)
                seconds = time.perf_counter() - start
                got = result.command if isinstance(result, Transcript) else None
                ok = got == expected if expected is not None else got is None
                described = f"{got.intent} {dict(got.slots)}" if got is not None else "nothing"
                row = {"key": key, "ok": ok, "got": described, "heard": result.heard, "seconds": seconds}
                if out is not None:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
            busy += row["seconds"]
            audio += len(clip) / 16000
            group = "tuning" if speaker in tuning else "held-out"
            for g in (group, "all"):
                table[condition.name, g].add(expected is not None, row["ok"], row["seconds"])
            per_game[game].add(expected is not None, row["ok"], row["seconds"])
            per_voice[speaker].add(expected is not None, row["ok"], row["seconds"])
            if not row["ok"]:
                what = "wrong " if expected is not None else "taken "
                errors.append(f"  {what} [{game}; {condition.name}; {speaker.label}] {text!r} -> {row['got']} "
                              f"(heard {row['heard']!r})")
    finally:
        if out is not None:
            out.close()
    print(f"\n== {engine} ==  ({len(clips)} clips, {audio / 60:.1f} min of audio, "
          f"hearing took {busy / max(audio, 1e-9):.2f}x real time)")
    width = 16
    print(f"{'':<17}{'commands right':^{3 * width}}  {'table talk taken':^{3 * width}}  {'s per utterance':>16}")
    print(f"{'condition':<17}" + "".join(f"{g:>{width}}" for g in groups) + "  "
          + "".join(f"{g:>{width}}" for g in groups) + f"  {'median':>7} {'p90':>7}")
    summary: dict[str, Any] = {"engine": engine, "conditions": {}, "games": {}, "voices": {}}
    overall: dict[str, Tally] = defaultdict(Tally)
    for condition in conditions:
        if (condition.name, "all") not in table:
            continue
        cells = [table[condition.name, g] for g in groups]
        for g, tally in zip(groups, cells, strict=True):
            merged = overall[g]
            merged.right = [merged.right[0] + tally.right[0], merged.right[1] + tally.right[1]]
            merged.taken = [merged.taken[0] + tally.taken[0], merged.taken[1] + tally.taken[1]]
            merged.seconds += tally.seconds
        print(row_text(condition.name, cells, width))
        summary["conditions"][condition.name] = {g: tally_json(t) for g, t in zip(groups, cells, strict=True)}
    print(row_text("overall", [overall[g] for g in groups], width))
    summary["conditions"]["overall"] = {g: tally_json(overall[g]) for g in groups}
    print("by game (all voices and conditions):")
    for game, tally in per_game.items():
        print(f"  {game:<13} commands {fraction(tally.right):>20}   table talk taken {tally.taken[0]}/{tally.taken[1]}")
        summary["games"][game] = tally_json(tally)
    print("commands right by voice (all conditions):")
    for voices, name in ((TUNING_SPEAKERS, "tuning"), (HELD_OUT_SPEAKERS, "held-out")):
        for speaker in voices:
            if speaker in per_voice:
                tally = per_voice[speaker]
                print(f"  {name:<9} {speaker.label:<36} {fraction(tally.right):>20}   "
                      f"table talk taken {tally.taken[0]}/{tally.taken[1]}")
                summary["voices"][speaker.label] = {"set": name, **tally_json(tally)}
    if verbose:
        print("errors:")
        print("\n".join(errors) or "  none")
    return summary


def row_text(name: str, cells: Sequence[Tally], width: int) -> str:
    right = "".join(f"{fraction(t.right):>{width}}" for t in cells)
    taken = "".join(f"{t.taken[0]:>{width - 6}}/{t.taken[1]:<5}" for t in cells)
    seconds = cells[-1].seconds
    timing = (f"{statistics.median(seconds):>7.3f} {float(np.percentile(seconds, 90)):>7.3f}"
              if seconds else f"{'-':>7} {'-':>7}")
    return f"{name:<17}{right}  {taken}  {timing}"


def fraction(pair: Sequence[int]) -> str:
    return f"{pair[0]}/{pair[1]} {pct(pair)}"


def tally_json(tally: Tally) -> dict[str, Any]:
    s = tally.seconds
    return {"commands_right": tally.right[0], "commands": tally.right[1], "table_talk_taken": tally.taken[0],
            "table_talk": tally.taken[1], "median_s": statistics.median(s) if s else None,
            "p90_s": float(np.percentile(s, 90)) if s else None}


def pct(pair: Sequence[int]) -> str:
    return f"{100.0 * pair[0] / pair[1]:.1f}%" if pair[1] else "-"


def checked_table_talk(games: dict[str, SentenceSet], lines: Sequence[tuple[str, str | None]]
                       ) -> list[tuple[str, str | None]]:
    """The lines that are no command of any game they can be heard in (a benchmark error else)."""
    for text, tag in lines:
        for game, sentences in games.items():
            if tag in (None, game) and sentences.match(sentences.words(text)) is not None:
                raise SystemExit(f"table talk {text!r} is a command of {game}: {sentences.match(text)}")
    return list(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="all", help=f"all, or one of {', '.join(GAMES)}")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated")
    parser.add_argument("--per-intent", type=int, default=2, help="sentences per intent")
    parser.add_argument("--voices", type=int, default=1,
                        help="voices of each set (tuning, held-out) saying each command; 0: every voice")
    parser.add_argument("--talk-voices", type=int, default=2,
                        help="voices of each set saying each table-talk line; 0: every voice")
    parser.add_argument("--quick", action="store_true",
                        help="1 sentence per intent said by 1 voice, 16 table-talk lines said by 1 voice of each "
                        f"set, {len(QUICK_CONDITIONS)} conditions ({', '.join(QUICK_CONDITIONS)})")
    parser.add_argument("--conditions", help="comma-separated condition names to run (default: all but the "
                        "5 dB ones), e.g. 'clean,white 20 dB'")
    parser.add_argument("--cache", type=Path, help="clip and result cache folder (default: a temp folder)")
    parser.add_argument("--count", action="store_true", help="only count the clips the run would hear")
    parser.add_argument("--fresh", action="store_true", help="do not reuse results kept under --cache")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--config", help="settings file (default: ./config.yaml)")
    parser.add_argument("--all-intents", action="store_true",
                        help="hear every clip with every sentence of its game (not the moment's grammar)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every error")
    args = parser.parse_args(argv)
    config = Config.load(args.config)
    settings = HearingSettings.from_config(config)
    names = list(GAMES) if args.game == "all" else [args.game]
    if any(name not in GAMES for name in names):
        parser.error(f"unknown game {args.game!r}; known: all, {', '.join(GAMES)}")
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
    per_intent = 1 if args.quick else args.per_intent
    per_set = 1 if args.quick else args.talk_voices
    per_command = -1 if args.quick else args.voices
    games = {name: game_module(name).sentences() for name in names}
    talk = checked_table_talk(games, TABLE_TALK)
    if args.quick:
        talk = talk[::4]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or Path(tmp)
        maker = ClipMaker(cache)
        noise = babble(maker) if not args.count else np.zeros(1)
        items: list[tuple[str, str, Command | None]] = []
        for name, sentences in games.items():
            items.extend((name, text, command) for text, command in sample_commands(sentences, per_intent))
        clips: list[Clip] = []
        made = time.monotonic()
        for n, (game, text, expected) in enumerate(items):
            for speaker in voices_for(n, per_command):
                if not args.count:
                    maker.say(text, speaker)  # every voice's clip made (and cached) once, up front
                clips.extend((game, condition, text, speaker, expected, n * 31 + k)
                             for k, condition in enumerate(conditions))
        for line, (text, tag) in enumerate(talk):
            n = len(items) + line
            for v, speaker in enumerate(voices_for(n, per_set)):
                if not args.count:
                    maker.say(text, speaker)
                clips.extend((table_talk_games(line, tag, names, v), condition, text, speaker, None, n * 31 + k)
                             for k, condition in enumerate(conditions))
        if args.count:
            talk_clips = sum(c[4] is None for c in clips)
            print(f"{len(items)} commands, {len(talk)} table-talk lines: {len(clips)} clips "
                  f"({len(clips) - talk_clips} commands, {talk_clips} table talk)")
            for name in names:
                print(f"  {name:<12} {sum(c[0] == name for c in clips)} clips")
            return 0
        # One grammar after another: switching a recognizer's grammar is not free.
        moments = {name: None if args.all_intents else listening_moments(name) for name in names}
        clips.sort(key=lambda c: (c[0], sorted(grammar_key(moments[c[0]], games[c[0]], c[4]))))
        said = ("each by one voice of either set" if per_command < 0
                else f"each by {per_command or 'every'} voice(s) of each set")
        print(f"{len(items)} commands ({said}) and {len(talk)} table-talk lines (each by {per_set or 'every'} of "
              f"each set) from {', '.join(names)}; {len(TUNING_SPEAKERS)} tuning and "
              f"{len(HELD_OUT_SPEAKERS)} held-out voices; {len(conditions)} conditions: {len(clips)} clips "
              f"({sum(c[4] is None for c in clips)} table talk), made in {time.monotonic() - made:.0f} s. "
              f"auto picks: {choose(settings).note}")
        print("voices:  tuning: " + "; ".join(s.label for s in TUNING_SPEAKERS))
        print("       held-out: " + "; ".join(s.label for s in HELD_OUT_SPEAKERS))
        print(f"conditions: {', '.join(c.name for c in conditions)} (reverb: RT60 {REVERB_RT60} s, "
              f"direct-to-reverberant {REVERB_DRR_DB:g} dB)")
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
        fingerprint = code_fingerprint(settings, config.path)
        report = []
        for engine in engines:
            results = None
            if args.cache is not None:
                results = args.cache / "results" / f"{engine}-{fingerprint}.jsonl"
                results.parent.mkdir(parents=True, exist_ok=True)
                if args.fresh:
                    results.unlink(missing_ok=True)
            summary = run_engine(engine, settings, games, moments, clips, maker, noise, conditions, args.verbose,
                                 results)
            if summary is not None:
                report.append(summary)
        if args.json is not None:
            args.json.write_text(json.dumps({"argv": sys.argv[1:], "engines": report}, indent=1))
    return 0


def grammar_key(moments: Counter[frozenset[str]] | None, sentences: SentenceSet,
                expected: Command | None) -> Iterable[str]:
    if moments is None:
        return sentences.intents
    return grammar_for(moments, expected.intent if expected else None) or sentences.intents


if __name__ == "__main__":
    sys.exit(main())
