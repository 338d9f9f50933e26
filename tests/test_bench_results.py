"""bench/results/: one file a maintained benchmark's latest run, its figures inside it.

Each results file opens with the header the benchmarks write (bench/results.py: command, date,
machine, commit), its command runs one of bench/'s benchmarks, and its figures, when it has
any, are one JSON block under "## Figures"; there are at most 15 (issue 59: the latest run of
each maintained benchmark, nothing else). Read as text: tests do not import bench/."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def test_every_results_file_is_a_maintained_benchmarks_run() -> None:
    files = sorted(RESULTS.iterdir())
    assert 0 < len(files) <= 15, [f.name for f in files]
    for path in files:
        assert path.suffix == ".md", f"{path.name}: one .md file a run (figures inside it)"
        text = path.read_text(encoding="utf-8")
        for field in ("command", "date", "machine", "commit"):
            assert f"\n- {field}: " in text, f"{path.name} has no {field} in its header"
        command = re.search(r"^- command: `\S*python\S* (bench/\S+\.py)", text, re.MULTILINE)
        assert command is not None, f"{path.name}: its command runs no benchmark"
        assert (ROOT / command.group(1)).is_file(), f"{path.name}: {command.group(1)} is not in bench/"
        if "\n## Figures\n" in text:
            block = text.split("\n## Figures\n", 1)[1].split("```json\n", 1)[1].rsplit("\n```", 1)[0]
            figures = json.loads(block)
            assert figures["command"][0] == command.group(1), path.name
