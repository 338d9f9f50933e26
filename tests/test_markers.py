"""Tests by kind: a test that opens a sound device carries the ``audio`` marker, one that loads a
speech model ``model``, one that needs the internet ``network``, one that drives a browser
``browser`` (pyproject.toml registers them; ``./test.sh`` runs them all, ``-m "not model"``
leaves some out). Found by what the test calls: the helpers and classes that open each
(``TRIGGERS``), directly, through the file's own functions, or through its fixtures."""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: marker -> the names whose use opens what it stands for
TRIGGERS: dict[str, frozenset[str]] = {
    "audio": frozenset({"ensure_audio", "private_sink", "private_mic", "Recorder", "SecondServer", "MicFeeder",
                        "live_assistant", "running_assistant"}),
    "model": frozenset({"open_ear", "open_transcriber", "PhraseEar", "PiperVoice", "WhisperTranscriber",
                        "ClipMaker", "piper_clip", "Ears", "live_assistant", "running_assistant"}),
    "network": frozenset({"report_cache"}),  # PyPI's report on the real dependencies
    "browser": frozenset({"chromium", "webdriver"}),
}


@functools.cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def marks(decorators: list[ast.expr], aliases: dict[str, set[str]]) -> set[str]:
    """The markers named by ``@pytest.mark.x`` decorators or ``pytestmark`` values (also
    through a module variable such as ``AUDIO = pytest.mark.audio``)."""
    found: set[str] = set()
    for node in decorators:
        for part in ast.walk(node):
            if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Attribute) \
                    and part.value.attr == "mark":
                found.add(part.attr)
            elif isinstance(part, ast.Name):
                found |= aliases.get(part.id, set())
    return found


def uses(node: ast.AST) -> set[str]:
    """Names a function reads or calls (and ``load="now"``: a voice loaded at once)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    if any(isinstance(k, ast.keyword) and k.arg == "load" and isinstance(k.value, ast.Constant)
           and k.value.value == "now" for k in ast.walk(node)):
        names.add("piper_clip")  # a voice model loaded: counts as a model
    if isinstance(node, ast.FunctionDef):
        names |= {a.arg for a in node.args.args}  # fixtures
    return names


def unmarked(path: Path) -> list[str]:
    """"test_x needs marker m" for each test of ``path`` that opens what m stands for without it."""
    tree = parsed(path)
    aliases: dict[str, set[str]] = {}
    file_marks: set[str] = set()
    functions: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name == "pytestmark":
                file_marks = marks([node.value], aliases)
            else:
                aliases[name] = marks([node.value], {})
        elif isinstance(node, ast.FunctionDef):
            functions[node.name] = node
    # what each function of the file opens, through the file's other functions and fixtures too
    used = {name: uses(function) for name, function in functions.items()}
    opens = {name: {m for m, names in TRIGGERS.items() if used[name] & names} for name in functions}
    changed = True
    while changed:
        changed = False
        for name in functions:
            for other in used[name] & functions.keys():
                if not opens[other] <= opens[name]:
                    opens[name] |= opens[other]
                    changed = True
    missing = []
    for name, function in functions.items():
        if name.startswith("test_"):
            for marker in sorted(opens[name] - file_marks - marks(function.decorator_list, aliases)):
                missing.append(f"{path.name}::{name} needs @pytest.mark.{marker}")
    return missing


def test_every_test_that_opens_a_device_model_network_or_browser_carries_its_marker() -> None:
    missing = [line for path in sorted(TESTS.glob("test_*.py")) for line in unmarked(path)]
    assert not missing, "\n".join(missing)


def test_the_markers_are_registered() -> None:
    options = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    registered = {line.split(":")[0] for line in options["markers"]}
    assert set(TRIGGERS) <= registered


def test_the_marker_check_finds_a_test_without_its_marker(tmp_path: Path) -> None:
    """A test reaching a model through a helper and a fixture, one marked, one marked by the file."""
    path = tmp_path / "test_example.py"
    path.write_text("import pytest\nfrom tests.support.spoken import ClipMaker\n\n"
                    "def clips():\n    return ClipMaker()\n\n"
                    "@pytest.fixture\ndef maker():\n    return clips()\n\n"
                    "def test_through_a_fixture(maker):\n    pass\n\n"
                    "@pytest.mark.model\ndef test_marked():\n    clips()\n\n"
                    "def test_nothing():\n    pass\n", encoding="utf-8")
    assert unmarked(path) == ["test_example.py::test_through_a_fixture needs @pytest.mark.model"]
    marked = tmp_path / "test_marked.py"
    marked.write_text("import pytest\npytestmark = [pytest.mark.model]\n" + path.read_text().split("\n", 1)[1])
    assert unmarked(marked) == []


def test_each_kind_has_tests() -> None:
    """Every marker is on some test (else it, or its triggers, are wrong)."""
    used: set[str] = set()
    for path in TESTS.glob("test_*.py"):
        used |= marks([n for n in ast.walk(parsed(path)) if isinstance(n, ast.Attribute)], {})
    assert set(TRIGGERS) <= used
