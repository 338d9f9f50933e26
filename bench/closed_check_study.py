"""Three ways to decide, compared on the same clips from kept benchmark rows: Whisper's free text
alone (its stages, the closed check off), Whisper held to the grammar alone, and the shipped
design (the free text's stages, then the closed check as the last word).

Give two kept-row files of ``bench/bench_accuracy.py --cache DIR`` runs over the same clips:
``--free`` heard with ``hearing.whisper.closed: false`` (what the free text's stages took), and
``--closed`` heard with ``--config bench/closed_study.yaml`` (the closed stage's figures on every
clip). Clips are joined by their key. For the shipped design it replays the check: a command
the free text took stands when the closed stage's best sentence is the same command and Whisper
would stop after it (``closed_stop``), and is asked about otherwise; when the free text took
nothing, ``pipeline.Closed.verdict`` decides. The thresholds are the declared defaults.

    python bench/closed_check_study.py --free DIR/results/hybrid-A.jsonl --closed DIR/results/hybrid-B.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.hearing import HearingSettings  # noqa: E402
from assistant.hearing.pipeline import Closed, HeldTo  # noqa: E402


def load(path: Path) -> dict[str, dict[str, Any]]:
    rows = {}
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        rows[row["key"]] = row
    return rows


def held(row: dict[str, Any]) -> HeldTo | None:
    step = next((s for s in row.get("steps", []) if s[0] == "closed"), None)
    return HeldTo.from_note(step[1]) if step is not None else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--free", type=Path, required=True, help="kept rows heard with the closed check off")
    parser.add_argument("--closed", type=Path, required=True, help="kept rows heard with bench/closed_study.yaml")
    args = parser.parse_args(argv)
    free, closed = load(args.free), load(args.closed)
    settings = HearingSettings()
    names = ("free text alone", "closed alone", "free text, then the closed check")
    counts = {name: dict.fromkeys(("right", "right asked", "WRONG", "WRONG asked", "missed", "talk taken",
                                   "talk asked"), 0) for name in names}
    joined = 0
    for key, c in closed.items():
        f = free.get(key)
        h = held(c)
        if f is None or h is None:
            continue
        joined += 1
        talk = c.get("expected") is None
        best_right = bool(c["ok"]) and not talk  # the permissive run took the best sentence
        took = f["got"] != "nothing"
        verdicts = {
            names[0]: ("heard", bool(f["ok"]) and took) if took else ("", False),
            names[1]: (Closed.verdict(h, settings), best_right),
        }
        if took:
            agree = f["got"] == c["got"] and h.stop >= -settings.closed_stop
            verdicts[names[2]] = ("heard" if agree else "doubted", bool(f["ok"]))
        else:
            verdicts[names[2]] = (Closed.verdict(h, settings), best_right)
        for name, (verdict, right) in verdicts.items():
            count = counts[name]
            if talk:
                count["talk taken"] += verdict == "heard"
                count["talk asked"] += verdict == "doubted"
            elif not verdict:
                count["missed"] += 1
            elif verdict == "heard":
                count["right" if right else "WRONG"] += 1
            else:
                count["right asked" if right else "WRONG asked"] += 1
    print(f"{joined} clips in both files ({sum(c.get('expected') is None for k, c in closed.items() if k in free)} "
          "table talk); thresholds: the declared defaults")
    for name in names:
        print(f"  {name:<34} " + "  ".join(f"{k} {v}" for k, v in counts[name].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
