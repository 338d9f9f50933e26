"""What the Command Center asks one player to press in private now, read from its state.

The rulebook has three secret presses, each hidden behind the other hand: the secret code at
sign-on (two buttons; R skips the color), the attacker's shot ("Take your best shot!", one
button), and the termination button in the Virus's room (one). The defender's shields are
that player's presses too (one different button per shield), though not secret. A phone
keypad offers exactly these to the player asked, and nothing to anyone else.

This only reads the game (it may run on another thread than the one playing it, so a state
caught half-changed gives None rather than an error).
"""

from __future__ import annotations

from assistant.engine import Game
from assistant.games import PrivateRequest
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.board import COLORS
from assistant.games.omega_virus.engine import CommandCenter
from assistant.games.omega_virus.state import Phase

__all__ = ["COLORS", "private_request"]


def private_request(game: Game) -> PrivateRequest | None:
    """The private entry the Command Center waits for now, or None."""
    if not isinstance(game, CommandCenter):
        return None
    try:
        return _request(game)
    except (AttributeError, KeyError, TypeError):  # read while another thread changed it
        return None


def _request(cc: CommandCenter) -> PrivateRequest | None:
    phase = cc.phase
    if phase is Phase.SIGNON:
        color = cc.signon.asking
        if color is None:
            return None
        return PrivateRequest(color, P.enter_code(color).text, 2, len(cc.entry),
                              f"{P.title(color)} is entering a secret code.")
    if phase is Phase.SHOT:
        attack = cc.attack
        if attack is None:
            return None
        name = P.title(attack.attacker)
        return PrivateRequest(attack.attacker, f"{name}, take your best shot!", 1, 0,
                              f"{name} is taking a shot.")
    if phase is Phase.TERMINATE:
        mover = cc.mover
        if mover is None:
            return None
        name = P.title(mover[0])
        return PrivateRequest(mover[0], f"{name}, press one termination button.", 1, 0,
                              f"{name} is trying to terminate the Virus.")
    if phase is Phase.SHIELDS:
        defense = cc.defense
        if defense is None:
            return None
        name = P.title(defense.color)
        shields = f"{defense.n} shield{'s' if defense.n != 1 else ''}"
        return PrivateRequest(defense.color, f"{name}, energize {shields}: a different button for each.",
                              defense.n, len(defense.pressed), f"{name} is energizing shields.")
    return None
