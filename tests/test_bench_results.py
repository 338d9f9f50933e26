"""bench/results/: one file a maintained benchmark's latest run, its figures inside it.

Each results file opens with the header ``bench/results.py`` writes (command, date, machine,
commit), its command is one of bench/'s benchmarks, and its figures, when it has any, read back
as JSON; there are at most 15 (issue 59: the latest run of each maintained benchmark, nothing
else)."""

from __future__ import annotations

import re
from pathlib import Path

from bench.results import RESULTS, ROOT, Results, figures


def test_a_results_file_holds_its_output_and_its_figures(tmp_path: Path) -> None:
    results = Results("bench_x", "A title", ["bench/bench_x.py", "--flag"])
    results.notes.append("a note")

    def work() -> dict[str, object]:
        print("a table")
        return {"right": 3, "per": {"clean": [1, 2]}}

    results.record(work, write=False)
    results.figures = {"right": 3, "per": {"clean": [1, 2]}}
    path = results.write(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# A title\n\n- command: `") and "- commit: " in text and "- a note" in text
    assert "```text\na table\n```" in text
    assert figures(path) == {"command": ["bench/bench_x.py", "--flag"], "right": 3, "per": {"clean": [1, 2]}}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench_x.md"]


def test_a_results_file_without_figures_has_none(tmp_path: Path) -> None:
    path = Results("bench_y", "Y", ["bench/bench_y.py"]).write(tmp_path)
    assert figures(path) == {}


def test_every_results_file_is_a_maintained_benchmarks_run() -> None:
    files = sorted(RESULTS.iterdir())
    assert len(files) <= 15, [f.name for f in files]
    for path in files:
        assert path.suffix == ".md", f"{path.name}: one .md file a run (figures inside it)"
        text = path.read_text(encoding="utf-8")
        for field in ("command", "date", "machine", "commit"):
            assert f"\n- {field}: " in text, f"{path.name} has no {field} in its header"
        command = re.search(r"^- command: `\S*python\S* (bench/\S+\.py)", text, re.MULTILINE)
        assert command is not None, f"{path.name}: its command runs no benchmark"
        assert (ROOT / command.group(1)).is_file(), f"{path.name}: {command.group(1)} is not in bench/"
        figures(path)  # its figures, if any, read back
