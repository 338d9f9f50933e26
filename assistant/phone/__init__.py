"""Every player's phone as a private keypad: a page on the home network, joined with the
game's 4-digit PIN, that shows each player what the game asks of them and takes their
presses (secret codes, shots, termination, shields) as a keypad does. docs/phone-keypad.md.

The server (and aiohttp) is imported when it is first used, so reading ``phone.settings``
(every start does, to know the config's keys) costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assistant.phone.server import PhoneError, PhoneKeypad, PhoneSettings

__all__ = ["PhoneError", "PhoneKeypad", "PhoneSettings"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from assistant.phone import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
