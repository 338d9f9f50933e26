"""Choose the grammar search's thresholds (``hearing.whisper.closed_margin``, ``closed_fit``,
``closed_ask_fit`` and ``closed_stop``) from clips the accuracy benchmark heard, replaying the real decision rule.

Run ``bench/bench_accuracy.py --engines hybrid --cache DIR --config bench/closed_study.yaml``
first (it lets the closed stage take every best sentence, and no budget stop it): each clip's
row keeps the stage's figures in its verdict (the best sentence's log probability and length,
the best of another command's, Whisper's own reading's, whether the first pass took the same
command, how likely Whisper found stopping after the best). This study reads those rows (``--rows
DIR/results/hybrid-*.jsonl``) and, for every set of thresholds on a grid, replays
``pipeline.Closed.verdict`` on them: a clip is right, WRONG, missed, asked about (rightly or
wrongly), or (table talk) taken or asked about, exactly as a run with those thresholds would
have decided it.

It prints the grid's best by the rule the stages were chosen by: right - 5 x (wrong + table
talk taken, acted on) - (wrong commands and table talk asked about: a question the player
answers "no"), a command right but asked about counting 0.75 (the player's "yes"), and the
figures of any set asked for (``--set MARGIN,FIT,ASK_FIT,STOP``).
Choose on the TUNING set's rows; report the held-out set by running bench_accuracy with the
chosen set.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.hearing import HearingSettings  # noqa: E402
from assistant.hearing.pipeline import Closed, HeldTo  # noqa: E402
from bench.results import Results  # noqa: E402


@dataclass(frozen=True)
class Row:
    """One clip as the permissive run decided it: its figures, and whether its best was right."""

    condition: str
    talk: bool
    held: HeldTo | None
    best_right: bool


@dataclass
class Count:
    right: int = 0
    asked_right: int = 0
    wrong: int = 0
    asked_wrong: int = 0
    missed: int = 0
    talk: int = 0
    talk_taken: int = 0
    talk_asked: int = 0

    @property
    def commands(self) -> int:
        return self.right + self.asked_right + self.wrong + self.asked_wrong + self.missed

    def score(self, weight: float = 5.0, ask: float = 0.25) -> float:
        return (self.right + (1 - ask) * self.asked_right - weight * (self.wrong + self.talk_taken)
                - (self.asked_wrong + self.talk_asked))


def read_rows(paths: Iterable[Path]) -> list[Row]:
    rows = []
    for path in paths:
        for line in path.read_text().splitlines():
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            step = next((s for s in data.get("steps", []) if s[0] == "closed"), None)
            held = HeldTo.from_note(step[1]) if step is not None else None
            talk = data.get("expected") is None
            took = not str(data["got"]).startswith("nothing")
            rows.append(Row(data.get("condition", "?"), talk, held, bool(data["ok"]) and took and not talk))
    return rows


def count(rows: Sequence[Row], settings: HearingSettings) -> Count:
    out = Count()
    for row in rows:
        verdict = Closed.verdict(row.held, settings) if row.held is not None else ""
        if row.talk:
            out.talk += 1
            out.talk_taken += verdict == "heard"
            out.talk_asked += verdict == "doubted"
        elif not verdict:
            out.missed += 1
        elif verdict == "heard":
            out.right += row.best_right
            out.wrong += not row.best_right
        else:
            out.asked_right += row.best_right
            out.asked_wrong += not row.best_right
    return out


def line(name: str, c: Count) -> str:
    right = c.right + c.asked_right
    return (f"{name:<16} right {right}/{c.commands} ({100 * right / max(c.commands, 1):.0f}%; {c.asked_right} "
            f"asked first)  WRONG {c.wrong} acted on, {c.asked_wrong} asked first  missed {c.missed}  "
            f"table talk taken {c.talk_taken}, asked about {c.talk_asked} of {c.talk}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=Path, nargs="+", required=True, help="bench_accuracy's kept rows (.jsonl)")
    parser.add_argument("--set", action="append", default=[], help="MARGIN,FIT,ASK_FIT,STOP to show in detail")
    parser.add_argument("--weight", type=float, default=5.0, help="a wrong command or table talk taken costs this "
                        "many commands right")
    parser.add_argument("--ask", type=float, default=0.25, help="what asking about a command said right costs, in "
                        "commands right")
    parser.add_argument("--results", default="", help="also write bench/results/NAME.md")
    parser.add_argument("--note", action="append", default=[], help="a line for the results file's header")
    args = parser.parse_args(argv)
    results = Results(args.results or "unused", "The closed stage's thresholds, replayed on kept figures",
                      ["bench/closed_study.py", *(sys.argv[1:] if argv is None else argv)])
    results.notes.extend(args.note)
    with results.capture():
        study(args)
    if args.results:
        results.write()
    return 0


def study(args: argparse.Namespace) -> None:
    rows = read_rows(args.rows)
    base = HearingSettings()
    print(f"{len(rows)} clips ({sum(r.talk for r in rows)} table talk), "
          f"{sum(r.held is None for r in rows)} without the closed stage's figures")
    grid = []
    for stop in (0.5, 1.0, 1.5, 2.0, 3.0, 50.0):
        for margin in [x / 2 for x in range(0, 21)]:
            for fit in [x / 10 for x in range(0, 21)]:
                for ask in [x / 5 for x in range(0, 21, 2)]:
                    if ask < fit:
                        continue
                    c = count(rows, replace(base, closed_margin=margin, closed_fit=fit, closed_ask_fit=ask,
                                            closed_stop=stop))
                    grid.append((c.score(args.weight, args.ask), margin, fit, ask, stop, c))
    grid.sort(key=lambda g: (-g[0], -g[1], g[2], g[3], g[4]))
    print(f"best by right - {args.ask:g} x right asked first - {args.weight:g} x (wrong + table talk taken) - "
          "(wrong + table talk asked about):")
    for score, margin, fit, ask, stop, c in grid[:12]:
        print(f"  margin {margin:4.1f} fit {fit:3.1f} ask_fit {ask:3.1f} stop {stop:4.1f}  score {score:6.1f}  "
              + line("", c))
    chosen = [tuple(float(x) for x in p.split(",")) for p in args.set] or [grid[0][1:5]]
    for margin, fit, ask, stop in chosen:
        settings = replace(base, closed_margin=margin, closed_fit=fit, closed_ask_fit=ask, closed_stop=stop)
        print(f"\nmargin {margin} fit {fit} ask_fit {ask} stop {stop}:")
        print(line("  all", count(rows, settings)))
        for condition in sorted({r.condition for r in rows}):
            print(line(f"  {condition}", count([r for r in rows if r.condition == condition], settings)))

if __name__ == "__main__":
    raise SystemExit(main())
