"""The Command Center's station: what every phase shares. The players, the supply, the
board, the clocks, what is said, and the items found, stolen and lost.

The engine (``engine.py``, the moves and the phase table) holds it, and holds one object per
phase beside it, each with its own state: the mission (skill, sign-on and the countdown,
``mission.py``), the exploration (a Room explored, ``explore.py``) and battle (attacks,
shields and the Virus's termination, ``battle.py``). What the phases ask of the moves is
``Moves``.
"""

from __future__ import annotations

import random
from typing import Protocol

from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.board import Board
from assistant.games.omega_virus.state import (
    AVDS,
    CARDS,
    ITEM_WEIGHT,
    ROOM_ITEMS,
    SUPPLY,
    Phase,
    Player,
    Settings,
    Speech,
)


class Station:
    """The state of one game of the Command Center that every phase shares, and what every
    phase asks of it."""

    def __init__(self, rng: random.Random, settings: Settings | None = None) -> None:
        self.rng = rng
        self.settings = settings or Settings()
        self.board = Board.from_data(self.settings.board)
        self.players = {c: Player(c) for c in self.board.seat_order}
        self.supply = dict(SUPPLY)
        self.phase = Phase.SKILL
        self.entry: list[str] = []
        self.mover: tuple[str, str] | None = None
        self.clock_ms = 0
        self.used_ms = 0
        self.limit_ms = 0
        self.deadline_ms: int | None = None
        self.virus_room = ""
        self.termination_button = ""
        self.shut: list[str] = []
        self.nature: dict[tuple[str, str], str] = {}
        self.hazard_kind: dict[str, str] = {}
        self.winner: str | None = None
        self.speech = Speech()

    # ------------------------------------------------------------------ where things stand

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def clock_running(self) -> bool:
        return self.phase not in (Phase.SKILL, Phase.OVER)

    def countdown_running(self) -> bool:
        return self.phase not in (Phase.SKILL, Phase.SIGNON, Phase.OVER)

    @property
    def remaining_ms(self) -> int:
        return max(self.limit_ms - self.used_ms, 0)

    def playing(self) -> list[str]:
        return [c for c in self.board.seat_order if self.players[c].playing]

    def solo(self) -> bool:
        return len(self.playing()) == 1

    def mover_name(self) -> str:
        if self.mover is None:
            return ""
        return P.unit_name(*self.mover)

    def set_deadline(self, seconds: float) -> None:
        total = seconds + self.settings.response_extra_seconds
        self.deadline_ms = self.clock_ms + round(total * 1000)

    # ------------------------------------------------------------------ items

    def inventory_sentence(self, color: str) -> str:
        player = self.players[color]
        return P.inventory(color, [c for c in ("green card", *CARDS) if c in player.cards],
                           [a for a in AVDS if a in player.avds], player.probe)

    def choose_item(self, player: Player, room_color: str) -> str | None:
        wanted = [i for i in ROOM_ITEMS[room_color] if not player.holds(i)
                  and (i == "probe" or self.supply[i] > 0)]
        if not wanted:
            return None
        weights = [ITEM_WEIGHT[i] for i in wanted]
        return self.rng.choices(wanted, weights)[0]

    def give(self, player: Player, item: str) -> None:
        if item != "probe":
            self.supply[item] -= 1
        player.take(item)

    def give_back(self, player: Player, item: str) -> None:
        player.lose(item)
        if item != "probe":
            self.supply[item] += 1

    def random_bay(self) -> str:
        return self.rng.choice([s for s in self.board.sectors if s not in self.shut])

    def item_count(self, item: str) -> int:
        """Supply plus every player's holding: always the starting supply (nothing made or lost)."""
        return self.supply[item] + sum(1 for p in self.players.values() if p.holds(item))


class Moves(Protocol):
    """What the moves (engine.py) do for the phases: they call these, the engine answers."""

    def start_turn(self, color: str) -> None: ...
    def say_prompt(self) -> None: ...
    def next_player(self) -> None: ...
    def end_move(self) -> None: ...
    def finish_explore(self) -> None: ...
    def wrong(self) -> None:
        """Buzz, "Wrong!", and the mover starts again."""
    def timeout(self) -> None:
        """The phase's time limit ran out."""
    def enter(self, phase: Phase) -> None:
        """Go to a phase, starting its time limit if it has one."""
    def game_over(self) -> None: ...
