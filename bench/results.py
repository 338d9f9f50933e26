"""Results files: what a benchmark printed, under a header that says how to get it again.

Each benchmark writes one file, ``bench/results/<name>.md``: the exact command, the date, the
machine (CPU model, cores, load when it started) and the commit, marked "dirty" when the tree
had changes, then what it printed, then its figures as JSON when it has figures to give
(``figures`` reads them back). The README and docs link to these files
instead of quoting figures.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def cpu_model() -> str:
    """The CPU's model name as the kernel gives it (/proc/cpuinfo), else the platform's."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def commit() -> str:
    """The checked-out commit, with " (dirty)" when tracked files differ from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short=10", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + (" (dirty)" if dirty else "")


def header(argv: Sequence[str], notes: Sequence[str] = ()) -> str:
    """The lines that open a results file: command, date, machine, commit, and ``notes``."""
    command = shlex.join([Path(sys.executable).name, *argv])
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [f"- command: `{command}`",
             f"- date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
             f"- machine: {cpu_model()}, {os.cpu_count()} cores, {platform.machine()}, "
             f"Python {platform.python_version()}; load average at the start {load} (shared machine)",
             f"- commit: {commit()}"]
    lines.extend(f"- {note}" for note in notes)
    return "\n".join(lines)


#: The heading above a results file's figures
FIGURES = "## Figures"


def figures(path: Path) -> dict[str, Any]:
    """The figures a results file holds (its JSON block), or {} when it has none."""
    text = path.read_text(encoding="utf-8")
    if FIGURES not in text:
        return {}
    block = text.split(FIGURES, 1)[1].split("```json\n", 1)[1].rsplit("\n```", 1)[0]
    data: dict[str, Any] = json.loads(block)
    return data


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.out.write(text)
        self.kept.write(text)
        return len(text)

    def flush(self) -> None:
        self.out.flush()


class Results:
    """What a benchmark records: its printed output (kept while it runs), notes for the header,
    and figures for the JSON file."""

    def __init__(self, name: str, title: str, argv: Sequence[str]) -> None:
        self.name = name
        self.title = title
        self.argv = list(argv)
        self.notes: list[str] = []
        self.figures: dict[str, Any] = {}
        self.header = ""
        self._tee: _Tee | None = None

    @contextmanager
    def capture(self) -> Iterator[Results]:
        """Keep everything printed to stdout meanwhile (it still reaches the terminal)."""
        self.header = header(self.argv)  # the load before the run
        tee = _Tee(sys.stdout)
        self._tee = tee
        sys.stdout = tee  # type: ignore[assignment]
        try:
            yield self
        finally:
            sys.stdout = tee.out

    def record(self, work: Callable[[], dict[str, Any]], write: bool = True) -> None:
        """Run ``work`` (the benchmark's run, giving its figures) with its output kept, then write
        the results file with those figures, unless ``write`` is False (``--results ''``)."""
        with self.capture():
            figures = work()
        if write:
            self.figures = figures
            self.write()

    def write(self, folder: Path = RESULTS, extra: str = "") -> Path:
        """``folder/<name>.md``: the header, the output so far and ``extra`` after it, and the
        figures (a JSON block) when there are any; returns its path."""
        folder.mkdir(parents=True, exist_ok=True)
        kept = (self._tee.kept.getvalue() if self._tee is not None else "") + extra
        top = self.header or header(self.argv)
        top += f"\n- load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
        if self.notes:
            top += "\n" + "\n".join(f"- {note}" for note in self.notes)
        path = folder / f"{self.name}.md"
        text = f"# {self.title}\n\n{top}\n\n```text\n{kept.rstrip()}\n```\n"
        if self.figures:
            text += f"\n{FIGURES}\n\n```json\n{json.dumps({'command': self.argv, **self.figures}, indent=1)}\n```\n"
        path.write_text(text, encoding="utf-8")
        print(f"results written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}",
              file=sys.stderr)
        return path
