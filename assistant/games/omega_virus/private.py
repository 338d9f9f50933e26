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
    asked = _asked(cc)
    if asked is None:
        return None
    color, presses, entered, prompt, doing = asked
    return PrivateRequest(color, prompt, presses, entered, f"{P.title(color)} is {doing}.")


def _asked(cc: CommandCenter) -> tuple[str, int, int, str, str] | None:
    """Who is asked, for how many presses, how many are in, the prompt, and what the others see
    them doing."""
    phase = cc.phase
    if phase is Phase.SIGNON and cc.signon.asking is not None:
        color = cc.signon.asking
        return color, 2, len(cc.entry), P.enter_code(color).text, "entering a secret code"
    if phase is Phase.SHOT and cc.attack is not None:
        color = cc.attack.attacker
        return color, 1, 0, f"{P.title(color)}, take your best shot!", "taking a shot"
    if phase is Phase.TERMINATE and cc.mover is not None:
        color = cc.mover[0]
        return color, 1, 0, f"{P.title(color)}, press one termination button.", "trying to terminate the Virus"
    if phase is Phase.SHIELDS and cc.defense is not None:
        defense = cc.defense
        shields = f"{defense.n} shield{'s' if defense.n != 1 else ''}"
        return (defense.color, defense.n, len(defense.pressed),
                f"{P.title(defense.color)}, energize {shields}: a different button for each.", "energizing shields")
    return None
