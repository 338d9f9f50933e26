"""What the Command Center is asking now (its phase: "skill", "move", "shields" ...), and the
moment random play does not reach: the Virus found, "terminate" asked."""

from __future__ import annotations

from assistant.engine import Game
from assistant.games import Table
from assistant.games.omega_virus.engine import CommandCenter
from assistant.games.omega_virus.state import AVDS, Phase

DIGIT_WORDS = {"0": "zero", "1": "one", "2": "two"}


def moment(game: Game) -> str:
    return game.phase.value if isinstance(game, CommandCenter) else ""


def virus_found(table: Table) -> None:
    """Signed on by voice; the hand that can terminate is dealt (collecting it takes longer
    than random play lasts); then the mover explores the Virus's room."""
    table.hear("skill zero", "one two", "skip", "skip", "skip")
    cc = table.game
    assert isinstance(cc, CommandCenter) and cc.mover is not None, cc.allowed_intents()
    player = cc.players[cc.mover[0]]
    for item in ("red card", "blue card", "yellow card", *AVDS):
        cc.supply[item] -= 1
        player.take(item)
    table.hear("explore " + " ".join(DIGIT_WORDS[digit] for digit in cc.virus_room))
    assert cc.phase is Phase.TERMINATE, cc.phase


SCENES = (virus_found,)
