"""Who may press: the game's PIN, the attempts at it, and one phone per color.

Pure bookkeeping with an injected clock, so the limits are tested without waiting. Every
method takes the lock: the web server's thread and the session's thread both call in.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Wrong PINs from one phone (one address) within ``WINDOW_S`` before it must wait.
CLIENT_TRIES = 5
#: Wrong PINs from all phones together within ``WINDOW_S`` before everyone must wait.
ALL_TRIES = 15
WINDOW_S = 60.0
#: Wrong PINs in all before this PIN is retired (a new one is made when BSat1 next says it).
PIN_TRIES = 50
PIN_DIGITS = 4


class Refused(ValueError):
    """A join or a press that is not taken; ``str(error)`` is the reason the page shows, and
    ``status`` the HTTP status that goes with it."""

    def __init__(self, reason: str, status: int = 403) -> None:
        super().__init__(reason)
        self.status = status


@dataclass
class Phone:
    """One joined browser: its secret token and its color. ``waiting``: the color is held by
    another phone, and this one gets it when that one leaves or the table says so."""

    token: str
    color: str
    waiting: bool = False


def new_pin() -> str:
    return f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"


class Door:
    """The PIN, the rate limits on guessing it, and the phones let in (one per color)."""

    def __init__(self, colors: Sequence[str], clock: Callable[[], float] = time.monotonic) -> None:
        self.colors = tuple(colors)
        self.clock = clock
        self.pin = new_pin()
        self._lock = threading.RLock()
        self._failures: dict[str, deque[float]] = {}
        self._all_failures: deque[float] = deque()
        self._pin_failures = 0
        self._phones: dict[str, Phone] = {}        # token -> phone
        self._owner: dict[str, str] = {}           # color -> token of the phone that has it
        self._waiting: dict[str, str] = {}         # color -> token of the phone waiting for it

    # ------------------------------------------------------------------ the PIN

    @property
    def retired(self) -> bool:
        """Too many wrong PINs: nobody joins until a new PIN is made."""
        return self._pin_failures >= PIN_TRIES

    def renew_pin(self) -> str:
        """A new PIN (a new game, or the old one retired); phones already in stay in."""
        with self._lock:
            self.pin = new_pin()
            self._pin_failures = 0
            self._failures.clear()
            self._all_failures.clear()
            return self.pin

    def _check_limits(self, client: str) -> None:
        now = self.clock()
        if self.retired:
            raise Refused("Joining is closed after too many wrong PINs. Say phone keypad for a new PIN.", 429)
        mine = self._failures.get(client, deque())
        for failures in (mine, self._all_failures):
            while failures and failures[0] <= now - WINDOW_S:
                failures.popleft()
        if len(mine) >= CLIENT_TRIES:
            raise Refused(f"Too many wrong PINs from this phone. Try again in {self._wait(mine, now)} seconds.",
                          429)
        if len(self._all_failures) >= ALL_TRIES:
            raise Refused(f"Too many wrong PINs on this network. Try again in "
                          f"{self._wait(self._all_failures, now)} seconds.", 429)

    @staticmethod
    def _wait(failures: deque[float], now: float) -> int:
        return max(1, int(failures[0] + WINDOW_S - now + 0.999))

    def _fail(self, client: str) -> None:
        now = self.clock()
        for gone in [c for c, times in self._failures.items() if not times or times[-1] <= now - WINDOW_S]:
            del self._failures[gone]  # an address that stopped guessing is forgotten: memory stays bounded
        self._failures.setdefault(client, deque()).append(now)
        self._all_failures.append(now)
        self._pin_failures += 1

    # ------------------------------------------------------------------ phones

    def join(self, client: str, pin: str, color: str, token: str | None = None) -> Phone:
        """Let a phone in as ``color`` with the PIN; ``client`` is its address (for the limits),
        ``token`` the one it holds already (joining again: it leaves its old color first).

        A color another phone has gives a waiting phone. Raises Refused with the reason."""
        with self._lock:
            self._check_limits(client)
            pin = pin.strip()
            if len(pin) != PIN_DIGITS or not pin.isdigit():
                raise Refused(f"The PIN is {PIN_DIGITS} digits: BSat1 says it, or say phone keypad.", 400)
            if not secrets.compare_digest(pin, self.pin):
                self._fail(client)
                raise Refused("Wrong PIN. Listen for BSat1's PIN, or say phone keypad to hear it again.")
            if not self.colors:
                raise Refused("This game has no private presses: no phone keypad needed.", 400)
            if color not in self.colors:
                raise Refused(f"Choose a color: {', '.join(self.colors)}.", 400)
            if token is not None and token in self._phones:
                self._leave(token)
            phone = Phone(secrets.token_urlsafe(24), color)
            self._phones[phone.token] = phone
            if color in self._owner:
                replaced = self._waiting.get(color)
                if replaced is not None:
                    self._phones.pop(replaced, None)
                self._waiting[color] = phone.token
                phone.waiting = True
            else:
                self._owner[color] = phone.token
            return phone

    def phone(self, token: str | None) -> Phone | None:
        with self._lock:
            return self._phones.get(token) if token else None

    def leave(self, token: str) -> Phone | None:
        """The phone gives up its color (or stops waiting); a phone waiting for that color gets
        it, and is returned."""
        with self._lock:
            return self._leave(token)

    def _leave(self, token: str) -> Phone | None:
        phone = self._phones.pop(token, None)
        if phone is None:
            return None
        if self._waiting.get(phone.color) == token:
            del self._waiting[phone.color]
            return None
        if self._owner.get(phone.color) == token:
            del self._owner[phone.color]
            return self._promote(phone.color)
        return None

    def _promote(self, color: str) -> Phone | None:
        token = self._waiting.pop(color, None)
        if token is None:
            return None
        phone = self._phones[token]
        phone.waiting = False
        self._owner[color] = token
        return phone

    def waiting_colors(self) -> tuple[str, ...]:
        """Colors a second phone is waiting for (the table may give it the color)."""
        with self._lock:
            return tuple(c for c in self.colors if c in self._waiting)

    def waiting_phones(self) -> dict[str, str]:
        """The phone waiting for each color (color -> its token), in the game's order of colors."""
        with self._lock:
            return {c: self._waiting[c] for c in self.colors if c in self._waiting}

    def hand_over(self, color: str) -> tuple[Phone, Phone] | None:
        """The table agrees: the phone waiting for ``color`` takes it from the one that has it.
        Returns (the phone put out, the phone let in), or None if no phone is waiting."""
        with self._lock:
            if color not in self._waiting:
                return None
            old = self._phones.pop(self._owner.pop(color))
            new = self._promote(color)
            assert new is not None
            return old, new

    def phones(self) -> list[Phone]:
        with self._lock:
            return list(self._phones.values())

    def owner(self, color: str) -> Phone | None:
        with self._lock:
            token = self._owner.get(color)
            return self._phones[token] if token else None
