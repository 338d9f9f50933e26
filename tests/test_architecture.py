"""The shape of assistant/: no import cycle (imports inside functions and under
TYPE_CHECKING count too), no class over 400 lines, only the product in it (no module there
that only the tests or the benchmarks import, and no test that imports bench/), and hearing
knows the games only through their GameSpec."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import assistant

ROOT = Path(assistant.__file__).parent
MAX_CLASS_LINES = 400


#: module -> {module it imports -> where an import of it is written: "pkg/a.py:5"}
Graph = dict[str, dict[str, str]]


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package in folder ``root``, by dotted name (a package by its own
    name, from its __init__.py)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _ancestors(name: str) -> list[str]:
    """``a.b.c`` -> [``a``, ``a.b``]."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _imported(node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: dict[str, Path]) -> list[str]:
    """The modules an import statement in module ``name`` names: ``import a.b`` names ``a.b``;
    ``from a import b`` names ``a.b`` when that is a module, else ``a`` (b is a name in it)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = name if is_package else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]


def import_graph(root: Path, package: str) -> tuple[Graph, dict[str, Path]]:
    """What each module of the package runs when it is imported or when its functions run.

    Importing ``a.b.c`` runs ``a`` and ``a.b`` first, so those are imported too, except a
    module's own packages: they are already running (that is how a package's __init__
    imports its own submodules without a cycle). Naming one of them (``from a import x``
    where x is not a module) is a real import of it, though.
    """
    known = modules(root, package)
    graph: Graph = {}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        own = set(_ancestors(name))
        edges: dict[str, str] = {}
        where = path.relative_to(root.parent)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _imported(node, name, is_package, known):
                runs = [target] + [a for a in _ancestors(target) if a not in own]
                for module in runs:
                    if module in known and module != name:
                        edges.setdefault(module, f"{where}:{node.lineno}")
        graph[name] = edges
    return graph, known


def _strongly_connected(graph: Graph) -> Iterator[list[str]]:
    """Tarjan's strongly connected components, each with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(node: str) -> Iterator[list[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for after in sorted(graph.get(node, {})):
            if after not in index:
                yield from visit(after)
                low[node] = min(low[node], low[after])
            elif after in on_stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                yield sorted(component)

    for node in sorted(graph):
        if node not in index:
            yield from visit(node)


def _shortest_cycle(graph: Graph, component: list[str]) -> list[str]:
    """The shortest way from the component's first module back to itself."""
    start, inside = component[0], set(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for after in sorted(graph[node]):
                if after == start:
                    return paths[node] + [start]
                if after in inside and after not in paths:
                    paths[after] = paths[node] + [after]
                    following.append(after)
        frontier = following
    raise AssertionError(f"no cycle through {start}")


def find_cycles(graph: Graph) -> list[list[str]]:
    """One import cycle (first module repeated at the end) per group of modules that import
    each other; [] when there is none."""
    return [_shortest_cycle(graph, component) for component in _strongly_connected(graph)]


def describe(graph: Graph, cycle: list[str]) -> str:
    """The cycle on one line, then where each of its imports is written."""
    steps = [f"  {a} imports {b}  ({graph[a][b]})" for a, b in itertools.pairwise(cycle)]
    return " -> ".join(cycle) + "\n" + "\n".join(steps)


def test_no_import_cycle_in_assistant() -> None:
    graph, _ = import_graph(ROOT, "assistant")
    cycles = find_cycles(graph)
    groups = [f"  {', '.join(group)}" for group in _strongly_connected(graph)]
    assert not cycles, "import cycles in assistant/ (imports inside functions and under TYPE_CHECKING count):\n" + \
        "\n".join(describe(graph, cycle) for cycle in cycles) + \
        "\nbreak every cycle among these modules, which import each other:\n" + "\n".join(groups)


def test_no_class_over_400_lines() -> None:
    long = []
    for name, path in modules(ROOT, "assistant").items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or node.lineno) - first + 1
                if lines > MAX_CLASS_LINES:
                    long.append(f"{name}.{node.name}: {lines} lines ({path}:{first})")
    assert not long, f"classes over {MAX_CLASS_LINES} lines:\n" + "\n".join(long)


#: Tests that import bench/ (none: what a test needs lives in tests/support or assistant/).
BENCH_IMPORTS_ALLOWED: set[str] = set()


def imported_names(path: Path) -> set[str]:
    """Every dotted module name an import statement in ``path`` names (``from a import b``
    gives ``a`` and ``a.b``), inside functions too."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def product_modules(graph: Graph) -> set[str]:
    """The modules of assistant/ that running the assistant can import: from the ``assistant``
    command (cli, __main__) and every game package in GAMES (imported by name at run time)."""
    from assistant.games import GAMES

    reached: set[str] = set()
    todo = ["assistant", "assistant.__main__", "assistant.cli", *GAMES.values()]
    while todo:
        module = todo.pop()
        if module not in reached and module in graph:
            reached.add(module)
            todo.extend(graph[module])
    return reached


def test_assistant_holds_only_modules_the_product_imports() -> None:
    """A module of assistant/ that the tests or the benchmarks import but the assistant never
    does belongs in tests/support/ or bench/."""
    graph, known = import_graph(ROOT, "assistant")
    product = product_modules(graph)
    outside: dict[str, list[str]] = {}
    for folder in ("tests", "bench"):
        for path in sorted((ROOT.parent / folder).rglob("*.py")):
            for name in imported_names(path) & set(known) - product:
                outside.setdefault(name, []).append(str(path.relative_to(ROOT.parent)))
    assert not outside, "modules in assistant/ that only tests or bench import (move them to tests/support/ " \
        "or bench/):\n" + "\n".join(f"  {name}: {', '.join(users)}" for name, users in sorted(outside.items()))


def test_product_modules_are_found_through_the_command_and_the_games() -> None:
    """The check above has teeth: the command, a game's rules and the voice are the product's;
    a module nothing in assistant/ imports is not."""
    graph, _ = import_graph(ROOT, "assistant")
    product = product_modules(graph)
    assert {"assistant.cli", "assistant.games.omega_virus.engine", "assistant.voice.voices"} <= product
    graph["assistant.only_for_tests"] = {}
    assert "assistant.only_for_tests" not in product_modules(graph)


def test_no_test_imports_bench() -> None:
    """What tests and benchmarks share lives in tests/support/; bench/ holds benchmarks only."""
    tests = Path(__file__).resolve().parent
    importing = [str(path.relative_to(tests)) for path in sorted(tests.rglob("*.py"))
                 if any(name == "bench" or name.startswith("bench.") for name in imported_names(path))]
    assert sorted(set(importing) - BENCH_IMPORTS_ALLOWED) == []


#: How a game object is named where it is held: ``getattr(game, "phase")`` probes a game.
GAME_HOLDERS = {"game", "state", "engine", "cc", "command_center"}
#: Hearing's module that reads games: every ``getattr`` there is a probe of one.
READS_GAMES = "moments.py"


def game_probes(path: Path, text: str) -> list[str]:
    """Each ``getattr``/``hasattr`` of a game object in a module of hearing ("file:line"): any
    in moments.py, elsewhere one whose first argument is named as a game is held."""
    found = []
    for node in ast.walk(ast.parse(text, str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args):
            continue
        first = node.args[0]
        held = first.id if isinstance(first, ast.Name) else first.attr if isinstance(first, ast.Attribute) else ""
        if path.name == READS_GAMES or held.lower() in GAME_HOLDERS:
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def game_names_pattern() -> re.Pattern[str]:
    """Every known game's name and package name, however it is written ("omega-virus",
    "omega_virus", "Omega Virus"), as a whole word."""
    from assistant.games import GAMES, specs

    names = {*GAMES, *(package.rpartition(".")[2] for package in GAMES.values()), *(spec.name for spec in specs())}
    spellings = sorted((r"[-_ ]".join(map(re.escape, re.split(r"[-_ ]", name))) for name in names),
                       key=len, reverse=True)
    return re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(spellings)})(?![A-Za-z0-9])", re.IGNORECASE)


def game_names(path: Path, text: str, pattern: re.Pattern[str]) -> list[str]:
    """Each game named in a module's text, docstrings and comments too ("file:line: name"),
    but a command line's example (``--game NAME``)."""
    return [f"{path.name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in pattern.finditer(text)
            if not text[:m.start()].endswith("--game ")]


def test_hearing_knows_games_only_through_their_spec() -> None:
    """What a game is asking now and its scenes come from its GameSpec (``moment``, ``scenes``):
    hearing probes no game object and names no game, so a new game gets its moments unedited."""
    pattern = game_names_pattern()
    found = []
    for path in sorted((ROOT / "hearing").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found += game_probes(path, text) + game_names(path, text, pattern)
    assert not found, "assistant/hearing reads a game other than through its GameSpec:\n" + "\n".join(found)


@pytest.mark.parametrize(("name", "text", "flagged"), [
    ("moments.py", "phase = getattr(game, 'phase', None)\n", 1),
    ("moments.py", "x = getattr(session, 'winner', None)\n", 1),  # moments.py reads games by spec alone
    ("other.py", "x = getattr(session.game, 'pending', None) or hasattr(state, 'winner')\n", 2),
    ("other.py", "x = getattr(args, 'moment', None)\n", 0),
    ("other.py", 'NAMERS = {"prologue": f, "planets": g}\n', 2),
    ("other.py", "from assistant.games.omega_virus.engine import CommandCenter\n", 1),
    ("other.py", '"""The Omega Virus\'s skill moment; Battle of the Planets."""\n', 2),
    ("other.py", '"""``assistant transcribe FILE.wav [--game omega-virus]``; planetsX; msx-cardsy."""\n', 0),
])
def test_the_game_reading_finder(name: str, text: str, flagged: int) -> None:
    path = Path(name)
    assert len(game_probes(path, text) + game_names(path, text, game_names_pattern())) == flagged


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


#: Tiny packages and the cycles in them.
PACKAGES = {
    "a package importing its own modules is no cycle": ({
        # importing pkg.sub.x runs pkg and pkg.sub first, but from inside pkg.sub they already run
        "pkg/__init__.py": "from pkg.a import A\n",
        "pkg/a.py": "from pkg.b import B\nA = B\n",
        "pkg/b.py": "from . import c\nB = 1\n",
        "pkg/c.py": "",
        "pkg/sub/__init__.py": "from pkg.sub.x import X\n",
        "pkg/sub/x.py": "from .y import Y\nX = Y\n",
        "pkg/sub/y.py": "import pkg.c\nY = 2\n",
    }, []),
    "a cycle through a function and a package's __init__": ({
        # the shape keypad, phone and phone.server once had
        "pkg/__init__.py": "",
        "pkg/a.py": "A = 1\n\n\ndef f():\n    from pkg.other import Thing\n    return Thing\n",
        "pkg/other/__init__.py": "from pkg.other.server import Thing\n",
        "pkg/other/server.py": "from pkg.a import A\nThing = A\n",
    }, [["pkg.a", "pkg.other", "pkg.other.server", "pkg.a"]]),
    "a cycle under TYPE_CHECKING, by relative imports": ({
        "pkg/__init__.py": "",
        "pkg/x.py": "from .y import Y\n",
        "pkg/y.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .x import X\nY = 1\n",
        "pkg/z.py": "from pkg import x\n",
    }, [["pkg.x", "pkg.y", "pkg.x"]]),
    "naming a thing in the own package imports it": ({
        # which of pkg and pkg.a runs first decides whether NAME is there yet
        "pkg/__init__.py": "from pkg.a import A\nNAME = 1\n",
        "pkg/a.py": "from pkg import NAME\nA = NAME\n",
    }, [["pkg", "pkg.a", "pkg"]]),
}


@pytest.mark.parametrize("name", PACKAGES)
def test_the_cycle_finder(tmp_path: Path, name: str) -> None:
    files, expected = PACKAGES[name]
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    graph, known = import_graph(tmp_path / "pkg", "pkg")
    assert set(known) == {".".join(Path(f).with_suffix("").parts).removesuffix(".__init__") for f in files}
    assert find_cycles(graph) == expected


def test_a_cycle_is_told_with_where_each_import_is() -> None:
    graph = {"pkg.a": {"pkg.b": "pkg/a.py:5"}, "pkg.b": {"pkg.a": "pkg/b.py:1"}, "pkg.c": {"pkg.a": "pkg/c.py:2"}}
    cycles = find_cycles(graph)
    assert cycles == [["pkg.a", "pkg.b", "pkg.a"]]
    assert describe(graph, cycles[0]) == ("pkg.a -> pkg.b -> pkg.a\n  pkg.a imports pkg.b  (pkg/a.py:5)\n"
                                          "  pkg.b imports pkg.a  (pkg/b.py:1)")
