"""Playing by text: one input a line on stdin, one output a line on stdout.

    words            what a player said, matched like recognized speech
    press B [B ...]  private keypad presses (0 1 2 R)
    wait S           let S seconds of game time pass (with --clock virtual)

Input goes to one game's session, or to the box around the spoken menu and the games
(assistant/box.py): the same lines work for both.

Lines starting with # and blank lines are skipped. End of input ends cleanly, as do Ctrl-C
and SIGTERM (assistant/play.py says what is kept).
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from assistant.session import Front

if TYPE_CHECKING:
    from assistant.live.keypad import Keypad

BUTTONS = {"0", "1", "2", "R"}
#: The longest ``wait`` taken: a day of game time, longer than any game lasts.
MAX_WAIT_S = 86400.0


def parse_wait(rest: str) -> float | None:
    """The seconds of ``wait S``, or None unless S is a number from 0 to MAX_WAIT_S."""
    try:
        seconds = float(rest)
    except ValueError:
        return None
    return seconds if 0 <= seconds <= MAX_WAIT_S else None  # also refuses nan and inf


def parse_press(rest: str) -> list[str] | None:
    buttons = [b.upper() for b in rest.replace(",", " ").split()]
    if not buttons:
        return None
    # "press 12" is two presses
    flat = [c for b in buttons for c in b] if all(len(b) > 1 and b.isdigit() for b in buttons) else buttons
    return flat if all(b in BUTTONS for b in flat) else None


def handle_line(session: Front, line: str, virtual: bool) -> None:
    line = line.strip()
    if not line or line.startswith("#"):
        return
    word, _, rest = line.partition(" ")
    word = word.lower()
    if word == "wait":
        seconds = parse_wait(rest)
        if seconds is None:
            print(f"(wait needs a number of seconds from 0 to {MAX_WAIT_S:g}, e.g. 'wait 30'; got {rest!r})",
                  flush=True)
            return
        if not virtual:
            print("(wait works with --clock virtual; with the real clock time passes by itself)",
                  flush=True)
            return
        step_through(session, seconds)
        session.flush_time()
    elif word == "press":
        buttons = parse_press(rest)
        if buttons is None:
            print(f"(press takes buttons 0 1 2 R, e.g. 'press 1 2'; got {rest!r})", flush=True)
            return
        session.press(buttons)
    else:
        session.hear(line)


def step_through(session: Front, seconds: float) -> None:
    """Advance in steps so that timed events happen at their moment, in order."""
    left = seconds
    while left > 1e-9 and not session.time_stands_still:
        step = left
        due = session.next_event_in()
        if due is not None and 0 < due < step:
            step = due
        session.advance(step)
        left -= step


def run(session: Front, stream: TextIO = sys.stdin, virtual: bool = True, keypad: Keypad | None = None) -> int:
    """Play until the input ends or the session is finished. Ctrl-C (KeyboardInterrupt) goes
    through, after the session is closed: the game time gathered so far is written first.
    ``keypad`` (the phones): its presses are taken between lines, as they come."""
    try:
        if keypad is None and (virtual or not _selectable(stream)):
            for line in stream:
                handle_line(session, line, virtual)
                if session.finished:
                    break
        else:
            _run_as_it_comes(session, stream, virtual, keypad)
    finally:
        session.close()
    return 0


def _selectable(stream: TextIO) -> bool:
    try:
        stream.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    return True


@dataclass(frozen=True)
class Press:
    """A keypad button pressed (on a phone), among the typed lines."""

    button: str


def _run_as_it_comes(session: Front, stream: TextIO, virtual: bool, keypad: Keypad | None) -> None:
    """Lines and presses as they come. On the real clock game time runs while waiting: a reader
    thread takes the lines as they come (several may arrive at once, e.g. pasted or piped: each
    is handled at once, in order); the time spent answering a line does not count, as the clock
    stops while the game talks. On the virtual clock only ``wait`` lines pass time."""
    inputs: queue.Queue[str | Press | None] = queue.Queue()

    def read() -> None:
        try:
            for line in stream:
                inputs.put(line)
        except (OSError, ValueError):
            pass
        finally:
            inputs.put(None)

    threading.Thread(target=read, name="text-input", daemon=True).start()
    if keypad is not None:
        keypad.start(lambda button: inputs.put(Press(button)))
    last = time.monotonic()
    while not session.finished:
        due = None if virtual else session.next_event_in()
        timeout = 1.0 if due is None else max(0.01, min(due, 1.0))
        try:
            item = inputs.get(timeout=timeout)
            got = True
        except queue.Empty:
            item, got = None, False
        now = time.monotonic()
        session.advance(0.0 if virtual else now - last)  # 0: the box tells of waiting phones all the same
        if got:
            if item is None:
                break
            if isinstance(item, Press):
                session.press([item.button])
            elif not session.finished:
                handle_line(session, item, virtual)
        last = time.monotonic()
