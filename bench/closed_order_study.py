"""The closed stage's two rules of order, replayed on kept benchmark rows: its first look
(``closed_first``: the grammar search before Whisper's free text, a clear best sentence taken at
once) and holding the free text's commands to its margin (``closed_strict``).

Give the kept rows of a ``bench/bench_accuracy.py --engines hybrid --cache DIR --config
bench/closed_order_study.yaml`` run (both rules off, and no budget, so every clip has the closed
stage's figures and the free text's decision). For each clip this study replays:

- **the check alone** (both off): what the row says was decided;
- **first look**: when ``pipeline.Closed.verdict`` on the clip's figures is "heard", the best
  sentence is taken, and when it is "doubted", asked about, at the cost of the first pass and
  the search (the row's closed step); else the row's decision and cost stand;
- **strict**: a command the free text took and the check confirmed is asked about (when its
  intent is not harmless) unless ``pipeline.Closed.clear`` holds;
- **both** (as shipped: with the early no, ``closed_reject_fit``: a best sentence far below
  Whisper's own reading takes nothing at once, without the free text), also **without the early
  no**, **without reads** (``closed_reads`` off: a clear best sentence is
  not heard for Whisper's own reading saying its command), and **its questions to the free
  text** (as shipped before 2026-12-04's evening: the first look took only what it would hear,
  and left what it would ask about to the free text; reads off). The rows must be kept with
  ``closed_reads`` off, as the yaml sets, so that a clip the first look does not decide keeps
  the decision it would have had;
- **first look alone, no free text**: what the search's rule hears is taken, what it would ask
  about is asked, and nothing else (the cost of the first pass and the search alone: what
  ``hearing.budget_seconds`` too small for the free text gives).

Right, WRONG (acted on, asked first), missed and table talk taken are counted as
``bench_accuracy`` counted them when this study was run (2026-12-04): a doubted harmless command
acted on at once. Play now lets it go the first time (``tests.support.tally.as_played``); this
study's figures, kept in its results file, are of the earlier rule. CPU is the hearing's process
time per clip (median, p90).

    python bench/closed_order_study.py --rows DIR/results/hybrid-*.jsonl [--results NAME]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.games import GAMES, game_spec  # noqa: E402
from assistant.hearing import HearingSettings  # noqa: E402
from assistant.hearing.pipeline import Closed, HeldTo  # noqa: E402
from bench.results import Results  # noqa: E402

DESIGNS = ("the check alone", "first look", "strict", "first look + strict (shipped)",
           "first look + strict, without the early no", "first look + strict, without reads",
           "first look + strict, its questions to the free text", "first look alone, no free text")


@dataclass(frozen=True)
class Clip:
    """One kept row: what the check alone decided, and the closed stage's figures."""

    condition: str
    expected: str | None
    got: str
    asked: bool
    cpu: float
    #: what a clip decided at the first look costs: its whole CPU but the free text's stages'
    #: (before 2026-12-04's evening, the first pass's step and the search's alone: the first pass's
    #: streaming work, in no step, was left out, a median 0.2 CPU s)
    look_cpu: float
    held: HeldTo | None
    #: the commands the search's best sentence stands for, in any game ("intent {slots}")
    best: frozenset[str]
    #: the check confirmed a command the free text took
    confirmed: bool


def _described(intent: str, slots: dict[str, str]) -> str:
    return f"{intent} {slots}"


def read(paths: Sequence[Path]) -> list[Clip]:
    sets = [game_spec(game).sentences() for game in GAMES]
    clips = []
    for path in paths:
        for line in path.read_text().splitlines():
            try:
                row: dict[str, Any] = json.loads(line)
            except json.JSONDecodeError:
                continue
            steps = row.get("steps", [])
            closed = next((s for s in steps if s[0] == "closed"), None)
            held = HeldTo.from_note(closed[1]) if closed is not None else None
            best: set[str] = set()
            if closed is not None and held is not None:
                text = closed[1].split("[best", 1)[0].rstrip()
                quote = text[-1:]
                words = text[text.rfind(" " + quote) + 2:-1].split() if quote in "'\"" else []
                for sentences in sets:
                    command = sentences.match(words)
                    if command is not None:
                        best.add(_described(command.intent, dict(command.slots)))
            # the clip's whole hearing but the free text's stages: the first pass (streaming, most of
            # it in no step), the search and the rest of the process's work
            free_text = sum(float(s[2]) for s in steps if len(s) > 2 and s[0] not in ("first", "closed"))
            cpu = float(row.get("cpu") or 0.0)
            clips.append(Clip(row.get("condition", "?"), row.get("expected"), str(row["got"]), bool(row.get("asked")),
                              cpu, cpu - free_text, held, frozenset(best),
                              closed is not None and closed[1].startswith("confirmed")))
    return clips


def harmless_intents() -> set[str]:
    out: set[str] = set()
    for game in GAMES:
        out |= {name for name, intent in game_spec(game).sentences().intents.items() if intent.harmless}
    return out


def outcome(got: str, expected: str | None, asked: bool) -> str:
    took = not got.startswith("nothing")
    if expected is None:
        return "talk asked" if took and asked else "talk taken" if took else "talk ignored"
    if not took:
        return "missed"
    if got == expected:
        return "right asked" if asked else "right"
    return "WRONG asked" if asked else "WRONG"


def questioned(command: str, harmless: set[str]) -> bool:
    """Whether play asks before acting on ``command`` ("intent {slots}") taken with doubt: a
    harmless one (status, pause, no ...) is acted on however doubted."""
    return command.split(" ", 1)[0] not in harmless


def replay(clip: Clip, design: str, settings: HearingSettings, harmless: set[str]) -> tuple[str, float]:
    """What ``design`` decides for the clip, and what it costs."""
    alone = design.endswith("no free text")
    asks = "questions to the free text" not in design  # the first look asks at once
    # the early no (``closed_reject_fit``) only in the shipped design and the first look alone
    early_no = "shipped" in design or alone
    settings = replace(settings, closed_reads="without reads" not in design and asks,
                       closed_reject_fit=settings.closed_reject_fit if early_no else 0.0)
    verdict = Closed.verdict(clip.held, settings) if clip.held is not None and clip.best else ""
    if design.startswith("first look") and verdict == "no":
        return outcome("nothing", clip.expected, False), clip.look_cpu
    if design.startswith("first look") and (verdict == "heard" or (asks and verdict == "doubted")):
        got = clip.expected if clip.expected in clip.best else sorted(clip.best)[0]
        return outcome(got, clip.expected, verdict == "doubted" and questioned(got, harmless)), clip.look_cpu
    if alone:
        return outcome("nothing", clip.expected, False), clip.look_cpu
    asked = clip.asked
    if "strict" in design and clip.confirmed and clip.held is not None and not Closed.clear(clip.held, settings) \
            and questioned(clip.got, harmless):
        asked = True
    return outcome(clip.got, clip.expected, asked), clip.cpu


def line(name: str, outcomes: Counter[str], cpus: list[float]) -> str:
    commands = sum(n for k, n in outcomes.items() if not k.startswith("talk"))
    right = outcomes["right"] + outcomes["right asked"]
    talk = sum(n for k, n in outcomes.items() if k.startswith("talk"))
    p90 = sorted(cpus)[int(0.9 * (len(cpus) - 1))] if cpus else 0.0
    return (f"  {name:<31} right {right}/{commands} ({outcomes['right asked']} asked first)  WRONG acted on "
            f"{outcomes['WRONG']}, asked first {outcomes['WRONG asked']}  missed {outcomes['missed']}  table talk "
            f"taken {outcomes['talk taken']}, asked {outcomes['talk asked']} of {talk}  CPU s median "
            f"{statistics.median(cpus) if cpus else 0.0:.2f} p90 {p90:.2f}")


def study(clips: Sequence[Clip]) -> None:
    settings = HearingSettings()
    harmless = harmless_intents()
    print(f"{len(clips)} clips, {sum(c.held is None for c in clips)} without the closed stage's figures; "
          "thresholds: the declared defaults")
    for condition in (None, *sorted({c.condition for c in clips})):
        chosen = [c for c in clips if condition is None or c.condition == condition]
        print(f"{condition or 'every condition'}:")
        for design in DESIGNS:
            decided = [replay(c, design, settings, harmless) for c in chosen]
            print(line(design, Counter(o for o, _ in decided), [cpu for _, cpu in decided]))
    agreed(clips, harmless)
    reads(clips, settings, harmless)


def reads(clips: Sequence[Clip], settings: HearingSettings, harmless: set[str]) -> None:
    """The clips the first look hears only because Whisper's own reading says the best sentence's
    command (``closed_reads``), by how near that reading must come (``confirm_distance``): what
    they were, and what the shipped design without it decided for them."""
    off = replace(settings, closed_reads=False)

    def only_by_reads(on: HearingSettings) -> list[Clip]:
        return [c for c in clips if c.held is not None and c.best and Closed.verdict(c.held, on) == "heard"
                and Closed.verdict(c.held, off) != "heard"]

    print("\nheard at the first look only because Whisper's own reading says the command (closed_reads):")
    for distance in (0.0, 0.2, 0.4, 0.6):
        on = replace(settings, closed_reads=True, confirm_distance=distance)
        changed = only_by_reads(on)
        now = Counter(replay(c, "first look + strict (shipped)", on, harmless)[0] for c in changed)
        before = Counter(replay(c, "first look + strict, without reads", off, harmless)[0] for c in changed)
        print(f"  within {distance:g}: {len(changed)} clips; now "
              + ", ".join(f"{k} {n}" for k, n in sorted(now.items()))
              + "; before " + ", ".join(f"{k} {n}" for k, n in sorted(before.items())))
    for clip in only_by_reads(settings):
        assert clip.held is not None
        print(f"    {clip.condition:<16} said {clip.expected}  best {sorted(clip.best)[0]}  "
              f"reads {clip.held.reads:.2f} "
              f"fit {clip.held.fit:.2f} margin {clip.held.margin:.1f}  before: {clip.got}"
              f"{' (asked)' if clip.asked else ''}")


def agreed(clips: Sequence[Clip], harmless: set[str]) -> None:
    """The clips whose best sentence the first pass took too (``HeldTo.first`` "same": heard at
    once, whatever its margin and fit), by how far below Whisper's own reading (per token) the
    sentence is: what a bound on that fit would turn into questions."""
    same = [c for c in clips if c.held is not None and c.held.first == "same" and c.best]
    print(f"\nthe first pass took the best sentence's command too: {len(same)} clips")
    for bound in (0.9, 1.5, 2.0, 3.0, 4.0):
        below = Counter()
        for clip in same:
            assert clip.held is not None
            if clip.held.fit >= -bound:
                continue
            kind = "table talk" if clip.expected is None else "right" if clip.expected in clip.best else "WRONG"
            cost = "harmless" if sorted(clip.best)[0].split(" ", 1)[0] in harmless else "not harmless"
            below[f"{kind} ({cost})"] += 1
        print(f"  fit below -{bound:g} per token: " + (", ".join(f"{k} {n}" for k, n in sorted(below.items()))
                                                         or "none"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=Path, nargs="+", required=True, help="bench_accuracy's kept rows (.jsonl)")
    parser.add_argument("--results", default="", help="also write bench/results/NAME.md")
    parser.add_argument("--note", action="append", default=[], help="a line for the results file's header")
    args = parser.parse_args(argv)
    results = Results(args.results or "unused", "The closed stage's rules of order, replayed on kept rows",
                      ["bench/closed_order_study.py", *(sys.argv[1:] if argv is None else argv)])
    results.notes.extend(args.note)
    with results.capture():
        study(read(args.rows))
    if args.results:
        results.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
