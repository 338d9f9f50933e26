"""Commands said where the game does not allow them: named, taken as another command, or nothing.

    python bench/bench_not_allowed.py [--sets held-out] [--games omega-virus,msx-cards]
                                      [--per-intent 1] [--voices 3] [--conditions 'clean,white 20 dB']

``bench_accuracy`` says every command in a moment of play that asks for it. At the table a
player also says a move when the game waits for shields, or "attack" while a fighter is drawn:
the rules refuse it, and the game should say why ("not allowed now"), not take another command.
Here one sentence of every intent of each game (drawn from its expansion, as ``bench_accuracy``
draws them) is said in the largest moment of play that does *not* allow it (the most words to
be confused with), by each voice of a set (the synthetic tuning or held-out speakers), and
heard by the hybrid as configured, through ``open_ear`` as in play. Each is counted as:

- **named**: a command not allowed now, of the intent said (the game says why);
- **named another**: a command not allowed now, of another intent;
- **WRONG**: a command the moment allows, taken: **acted on**, or **asked first** (taken with
  doubt and not harmless: play asks "Explore one zero zero?" and acts only on a yes), or **let
  go** (taken with doubt and harmless: play lets it go the first time, acts on it if said again);
- **nothing**: not understood (the player hears nothing, or "Say again?").

Intents the box allows almost everywhere (louder, help, pause...) have no moment that refuses
them and are left out. Results: ``bench/results/bench_not_allowed.md`` (``--results NAME``;
``--results ''`` writes nothing).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assistant.config import Config  # noqa: E402
from assistant.engine import Command  # noqa: E402
from assistant.games import game_spec  # noqa: E402
from assistant.hearing import HearingSettings, NotAllowedNow, Transcript, open_ear  # noqa: E402
from assistant.hearing.moments import listening_moments  # noqa: E402
from assistant.sentences import SentenceSet  # noqa: E402
from bench.bench_accuracy import CONDITIONS, Noises, make_clip, sample_commands  # noqa: E402
from bench.results import Results  # noqa: E402
from bench.voices import OtherTalkers  # noqa: E402
from tests.support.spoken import HELD_OUT_SPEAKERS, TUNING_SPEAKERS, ClipMaker, Speaker, babble  # noqa: E402
from tests.support.tally import asked_first, in_play  # noqa: E402

GAMES = ("omega-virus", "prologue", "msx-cards", "planets")
KINDS = ("named", "named another", "wrong acted on", "wrong asked first", "wrong let go", "nothing")


def refusing_moment(moments: Sequence[frozenset[str]], intent: str) -> frozenset[str] | None:
    """The largest moment of play that does not allow ``intent`` and listens for some of the
    game's commands (not a question's yes or no alone, nor sleep); None if every moment allows it."""
    fitting = [allowed for allowed in moments if intent not in allowed and len(allowed) > 3]
    return max(fitting, key=lambda allowed: (len(allowed), sorted(allowed))) if fitting else None


def cases(game: str, sentences: SentenceSet, per_intent: int) -> list[tuple[str, Command, frozenset[str]]]:
    """(sentence, its command, the moment that refuses it) for every intent of ``game`` some
    moment refuses."""
    moments = list(listening_moments(game))
    chosen = []
    for text, command in sample_commands(sentences, per_intent):
        moment = refusing_moment(moments, command.intent)
        if moment is not None and command.intent in set().union(*moments):
            chosen.append((text, command, moment))
    return chosen


def kind(result: object, command: Command, sentences: SentenceSet) -> str:
    if isinstance(result, NotAllowedNow) and result.command is not None:
        return "named" if result.command.intent == command.intent else "named another"
    if isinstance(result, Transcript) and result.command is not None:
        if not isinstance(in_play(sentences, result), Transcript):
            return "wrong let go"  # doubted and harmless: let go the first time (acted on if said again)
        return "wrong asked first" if asked_first(sentences, result) else "wrong acted on"
    return "nothing"


def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = HearingSettings.from_config(Config.load(args.config))
    speakers: list[Speaker] = list(TUNING_SPEAKERS if args.sets == "tuning" else HELD_OUT_SPEAKERS)[:args.voices]
    by_name = {condition.name: condition for condition in CONDITIONS}
    conditions = [by_name[name.strip()] for name in args.conditions.split(",")]
    maker = ClipMaker(Path(args.cache) / "clips" if args.cache else None)
    noises = Noises(babble(maker), OtherTalkers(maker))
    tallies: dict[tuple[str, str], Counter[str]] = {}
    wrong: list[str] = []
    cpu: list[float] = []
    for game in args.games.split(","):
        spec = game_spec(game)
        sentences = spec.sentences()
        ears = {}
        for text, command, moment in cases(game, sentences, args.per_intent):
            if moment not in ears:
                ears[moment] = open_ear(settings, sentences, moment, engine="hybrid", fallback=False)
            ear = ears[moment]
            for condition in conditions:
                for speaker in speakers:
                    clip = make_clip(maker, text, speaker, condition, noises, seed=len(cpu))
                    start = time.process_time()
                    result = ear.hear(clip)
                    cpu.append(time.process_time() - start)
                    found = kind(result, command, sentences)
                    tallies.setdefault((game, condition.name), Counter())[found] += 1
                    if found.startswith("wrong"):
                        taken = getattr(result, "command", None)
                        wrong.append(f"{game} [{condition.name}; {speaker.label}] {text!r} ({command.intent}) -> "
                                     f"{taken.to_json() if taken else None} ({found}; heard {result.heard!r})")
            print(f"  {game}: {text!r} where {command.intent} is not allowed", file=sys.stderr, flush=True)
    print(f"Hybrid as configured; voices ({args.sets}): {'; '.join(s.label for s in speakers)}.\n")
    print("| game | condition | said | " + " | ".join(KINDS) + " |")
    print("|---|---|---|" + "---|" * len(KINDS))
    total: Counter[str] = Counter()
    for (game, where), tally in tallies.items():
        total.update(tally)
        print(f"| {game} | {where} | {sum(tally.values())} | " + " | ".join(str(tally[k]) for k in KINDS) + " |")
    print(f"| all | | {sum(total.values())} | " + " | ".join(str(total[k]) for k in KINDS) + " |")
    ordered = sorted(cpu)
    if ordered:
        print(f"\nCPU s per utterance: median {ordered[len(ordered) // 2]:.3f}, "
              f"p90 {ordered[int(0.9 * (len(ordered) - 1))]:.3f}")
    if wrong:
        print("\nTaken as another command:")
        for line in wrong:
            print(f"- {line}")
    return {"said": sum(total.values()), **{k: total[k] for k in KINDS}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", choices=("tuning", "held-out"), default="held-out")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--per-intent", type=int, default=1)
    parser.add_argument("--voices", type=int, default=3, help="how many speakers of the set")
    parser.add_argument("--conditions", default="clean,white 20 dB")
    parser.add_argument("--cache", help="keep the clips here (made again when absent)")
    parser.add_argument("--config", help="settings file (default: ./config.yaml)")
    parser.add_argument("--results", help="results file name (default bench_not_allowed; '' writes none)")
    parser.add_argument("--note", action="append", default=[])
    args = parser.parse_args(argv)
    name = args.results if args.results is not None else "bench_not_allowed"
    results = Results(name or "unused", "Commands said where the game does not allow them",
                      ["bench/bench_not_allowed.py", *(sys.argv[1:] if argv is None else argv)])
    results.notes.extend(args.note)
    results.record(lambda: run(args), write=bool(name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
