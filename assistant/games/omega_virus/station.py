"""The Command Center's station: what every phase shares. The players, the supply, the
board, the clocks, what is said, and the items found, stolen and lost.

The phases build on it in layers, each in its own module: the mission (skill, sign-on and
the countdown, ``mission.py``), battle (attacks, shields and the Virus's termination,
``battle.py``), and the moves (``engine.py``, whose phase table says what each phase takes).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import ClassVar

from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.board import Board
from assistant.games.omega_virus.state import (
    AVDS,
    CARDS,
    ITEM_WEIGHT,
    ROOM_ITEMS,
    SUPPLY,
    Attack,
    Defense,
    Phase,
    Player,
    Settings,
    SignOn,
    Speech,
)


class Station:
    """The state of one game of the Command Center, and what every phase asks of it."""

    name: ClassVar[str] = "omega-virus"
    speakers: ClassVar[tuple[str, ...]] = (P.BSAT1, P.VIRUS)
    supports_undo: ClassVar[bool] = False

    def __init__(self, rng: random.Random, settings: Settings | None = None) -> None:
        self.rng = rng
        self.settings = settings or Settings()
        self.board = Board.from_data(self.settings.board)
        self.players = {c: Player(c) for c in self.board.seat_order}
        self.supply = dict(SUPPLY)
        self.phase = Phase.SKILL
        self.signon = SignOn()
        self.entry: list[str] = []
        self.mover: tuple[str, str] | None = None
        self.defense: Defense | None = None
        self.attack: Attack | None = None
        self.explored_room: str | None = None
        self.clock_ms = 0
        self.used_ms = 0
        self.limit_ms = 0
        self.deadline_ms: int | None = None
        self.marks: list[tuple[int, str]] = []   # (remaining ms, kind), soonest last
        self.queued: list[str] = []              # events waiting for a quiet moment
        self.virus_room = ""
        self.termination_button = ""
        self.shutdown_order: list[str] = []
        self.shut: list[str] = []
        self.nature: dict[tuple[str, str], str] = {}
        self.hazard_kind: dict[str, str] = {}
        self.room_codes: dict[tuple[str, str], str] = {}
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

    def _mover_name(self) -> str:
        if self.mover is None:
            return ""
        return P.unit_name(*self.mover)

    def _deadline(self, seconds: float) -> None:
        total = seconds + self.settings.response_extra_seconds
        self.deadline_ms = self.clock_ms + round(total * 1000)

    # ------------------------------------------------------------------ items

    def inventory_sentence(self, color: str) -> str:
        player = self.players[color]
        return P.inventory(color, [c for c in ("green card", *CARDS) if c in player.cards],
                           [a for a in AVDS if a in player.avds], player.probe)

    def _choose_item(self, player: Player, room_color: str) -> str | None:
        wanted = [i for i in ROOM_ITEMS[room_color] if not player.holds(i)
                  and (i == "probe" or self.supply[i] > 0)]
        if not wanted:
            return None
        weights = [ITEM_WEIGHT[i] for i in wanted]
        return self.rng.choices(wanted, weights)[0]

    def _give(self, player: Player, item: str) -> None:
        if item != "probe":
            self.supply[item] -= 1
        player.take(item)

    def _return(self, player: Player, item: str) -> None:
        player.lose(item)
        if item != "probe":
            self.supply[item] += 1

    def _random_bay(self) -> str:
        return self.rng.choice([s for s in self.board.sectors if s not in self.shut])

    def item_count(self, item: str) -> int:
        """Supply plus every player's holding: always the starting supply (nothing made or lost)."""
        return self.supply[item] + sum(1 for p in self.players.values() if p.holds(item))

    # ------------------------------------------------------------------ what the moves provide
    # (engine.py): the layers below call them; declared here so that each layer reads whole.

    _start_turn: Callable[[str], None]
    _say_prompt: Callable[[], None]
    _next_player: Callable[[], None]
    _end_move: Callable[[], None]
    _finish_explore: Callable[[], None]
    _wrong: Callable[[], None]        # buzz, "Wrong!", and the mover starts again
    _timeout: Callable[[], None]      # the phase's time limit ran out
    _enter: Callable[[Phase], None]   # go to a phase, starting its time limit if it has one
