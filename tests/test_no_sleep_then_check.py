"""No test sleeps and then checks what happened meanwhile: "nothing happened within N s" passes
by default on a slow machine, and a duration measured around a sleep depends on the machine.
Such a test waits on an event that proves the thing could have happened (a line printed
after it, the loop having read past it, a clock the test steps) instead. Found as a
``time.sleep(...)`` whose next statement is an ``assert``."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: file:function -> why its sleep-then-assert is not a time window. The sleep makes a time
#: limit of the product pass (it is at least that long on any machine, so a slow machine
#: cannot make the check pass by default), and the assertion is on what the product does next.
ALLOWED = {
    "test_live_push_to_talk.py:test_words_under_way_when_time_is_up_are_taken_as_said":
        "lets talk_seconds (0.2 s) pass; then the utterance under way must end",
    "test_live_push_to_talk.py:test_a_press_while_the_assistant_speaks_does_not_open_listening":
        "lets mute_tail_seconds (0.4 s) pass; then a command must still not be heard",
}


@functools.cache
def sleeps_then_asserts(source: str) -> list[tuple[str, int]]:
    """(function, line) of each ``time.sleep(...)`` or ``sleep(...)`` statement directly
    followed by an ``assert`` in the same block."""
    found: list[tuple[str, int]] = []
    tree = ast.parse(source)
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            for block in (getattr(node, name, None) for name in ("body", "orelse", "finalbody", "handlers")):
                if not isinstance(block, list):
                    continue
                for first, second in zip(block, block[1:], strict=False):
                    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Call) \
                            and ast.unparse(first.value.func) in ("time.sleep", "sleep") \
                            and isinstance(second, ast.Assert):
                        found.append((function.name, first.lineno))
    return found


def test_no_sleep_followed_by_a_check() -> None:
    found = [f"{path.name}:{name} (line {line})" for path in sorted(TESTS.rglob("*.py"))
             for name, line in sleeps_then_asserts(path.read_text(encoding="utf-8"))
             if f"{path.name}:{name}" not in ALLOWED]
    assert not found, "a sleep, then a check of what happened meanwhile (wait on an event instead):\n" + \
        "\n".join(found)


def test_the_allowed_ones_are_still_there() -> None:
    """An entry whose test changed or went is dropped from ALLOWED, not kept as a loophole."""
    present = {f"{path.name}:{name}" for path in TESTS.rglob("*.py")
               for name, _ in sleeps_then_asserts(path.read_text(encoding="utf-8"))}
    assert set(ALLOWED) <= present


def test_the_scan_finds_a_sleep_then_a_check() -> None:
    source = ("import time\n\ndef test_x(out):\n    out.say('chatter')\n    time.sleep(8)\n"
              "    assert out.lines == []\n\ndef test_y(out):\n    time.sleep(0.1)\n    out.say('x')\n")
    assert sleeps_then_asserts(source) == [("test_x", 5)]
