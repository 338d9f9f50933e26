"""Whose turn it is to press in private, which presses are taken, and what each phone is shown.

The game's request is read from the web server's thread while the game plays on another, so
a failing read counts as "nothing asked". A press taken is handed on at once, but the game
sees it a moment later: until then it counts against the entry (``in flight``), so a quick
extra press cannot fall into the next player's entry. A press the game never sees (the live
loop drops presses made while the assistant speaks) is given up after ``IN_FLIGHT_S``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from assistant.games import PrivateRequest
from assistant.phone.access import Door, Phone

BUTTONS = ("0", "1", "2", "R")
IN_FLIGHT_S = 3.0
#: Goodbyes kept for phones put out (one per color is what a game needs; the oldest go first).
GOODBYES = 16
#: What a phone shows when the game asks nobody for a private entry.
NOTHING_ASKED = "Nothing to enter now. Listen to BSat1."


def title(color: str) -> str:
    return color.title()


def waiting_text(phone: Phone) -> str:
    name = title(phone.color)
    return (f"{name} is on another phone. That phone can tap Leave, or someone at the table can say: "
            f"give {phone.color.lower()} to the new phone.")


class Turns:
    """The presses the game asks for now, and what the phones let in may see of them."""

    def __init__(self, door: Door, clock: Callable[[], float],
                 request: Callable[[], PrivateRequest | None] = lambda: None,
                 busy: Callable[[], bool] = lambda: False) -> None:
        self.door = door
        self.clock = clock
        #: What the game asks which color to enter in private now.
        self.request = request
        #: Whether the assistant is speaking (a press then would do nothing).
        self.busy = busy
        #: Why a phone was put out, by its token (it is told so): at most ``GOODBYES``, the newest.
        self.goodbye: dict[str, str] = {}
        self._seen: tuple[object, int] | None = None
        self._in_flight: list[float] = []
        self._lock = threading.Lock()

    def say_goodbye(self, token: str, text: str) -> None:
        """Tell the phone that held ``token`` why it is out; the oldest goodbye is forgotten when
        ``GOODBYES`` are kept, so no number of leaves holds memory for ever."""
        with self._lock:
            self.goodbye.pop(token, None)
            self.goodbye[token] = text
            while len(self.goodbye) > GOODBYES:
                del self.goodbye[next(iter(self.goodbye))]

    def look(self) -> PrivateRequest | None:
        with self._lock:
            return self._read()

    def press(self, token: str, button: str, on_press: Callable[[str], None]) -> str | None:
        """A press from the phone holding ``token``: handed to ``on_press`` and None if it is
        taken, or the reason it is refused."""
        with self._lock:
            phone = self.door.phone(token)
            if phone is None:
                return "This phone is not joined. Join with the PIN."
            if phone.waiting:
                return waiting_text(phone)
            if button not in BUTTONS:
                return "Press 0, 1, 2 or R."
            request = self._read()
            if request is None:
                return "Not now: the game is not asking for a private entry. Listen to BSat1."
            if request.color != phone.color:
                return f"Not your turn: {request.waiting or title(request.color) + ' is entering.'}"
            if self.busy():
                return "Wait until BSat1 has finished speaking, then press."
            if request.presses - request.entered - len(self._in_flight) <= 0:
                return "That entry is complete."
            self._in_flight.append(self.clock())
            on_press(button)
            return None

    def _read(self) -> PrivateRequest | None:
        """What the game asks now, with the presses in flight brought up to date."""
        try:
            request = self.request()
        except Exception:  # caught half-changed by the game's thread: nothing asked, this time
            request = None
        key = None if request is None else (request.color, request.prompt, request.presses)
        entered = 0 if request is None else request.entered
        if self._seen is None or key != self._seen[0] or entered < self._seen[1]:
            self._in_flight.clear()   # a new entry: what was sent went into the last one
        else:
            del self._in_flight[:entered - self._seen[1]]
        now = self.clock()
        self._in_flight = [t for t in self._in_flight if now - t < IN_FLIGHT_S]
        self._seen = (key, entered)
        return request

    def view(self, token: str, request: PrivateRequest | None) -> dict[str, Any]:
        """What the phone holding ``token`` is shown now: its own prompt and how many of its own
        presses are in, or who is entering; never anything of another color's entry."""
        with self._lock:
            in_flight = len(self._in_flight)
        phone = self.door.phone(token)
        if phone is None:
            return {"type": "signed_out",
                    "reason": self.goodbye.get(token, "This phone is no longer joined. Join with the PIN.")}
        if phone.waiting:
            return {"type": "waiting", "color": phone.color, "text": waiting_text(phone)}
        shown: dict[str, Any] = {"type": "state", "color": phone.color}
        if request is None:
            return shown | {"turn": "idle", "text": NOTHING_ASKED}
        if request.color != phone.color:
            return shown | {"turn": "other", "text": request.waiting or f"{title(request.color)} is entering."}
        entered = min(request.presses, request.entered + in_flight)
        return shown | {"turn": "yours", "text": request.prompt, "presses": request.presses, "entered": entered}
