"""Battle of the Planets (Milton Bradley, 1979): 7-Zark-7 spins and keeps the Monster cards.

The assistant cannot see the board. It keeps the turn order, spins the 7-Zark-7 spinner
(a chance outcome drawn from the injected RNG over the configured segments), and the
players tell it what happened: who landed on the Intruder, on whom the Intruder landed,
who landed on whom, who reached Earth. It tracks where the 12 Monster cards are (the
pile, each player's unsafe cards, each player's safe cards) and who must blast off,
and calls the winner: the first to reach Earth holding three Monster cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assistant.engine import Command, NotAllowed, Output
from assistant.games.handlers import Handler, HandlerGame
from assistant.games.words import plural

MONSTER_CARDS = 12
CARDS_TO_WIN = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 4
ZARK = "ZARK"

WELCOME = ("7-Zark-7 here! I spin for the Intruder and G-Force and keep track of the Monster cards. "
           "Put the Intruder on Spectra and the 12 Monster cards in a pile.")
WHO_PLAYS = ("Who is playing? Say the ship colors in turn order, first player first: "
             "for example, red, blue and green.")
BLAST_OFF_RULE = ("put your ship on a red-dot space, not on another ship or the Intruder. "
                  "No spin this turn. Then say next.")
ROCKET_AWAY = "Rocket away in a straight line, as far as you like, but not onto another ship."
ROCKET_AWAY_FROM_SHIP = ("Rocket away in a straight line, as far as you like, "
                         "but not onto another ship or the Intruder.")
THEN_NEXT = "Say next when your move is done."
RED_SPOT = "Red spot! Rocket your ship as far as you like in a straight line."


@dataclass(frozen=True)
class Segment:
    """One segment of the spinner dial; ``gforce`` None is the red spot."""

    intruder: int
    gforce: int | None

    def text(self) -> str:
        ship = RED_SPOT if self.gforce is None else f"G-Force moves {self.gforce}."
        return f"Intruder moves {self.intruder}. {ship}"


def default_segments() -> tuple[Segment, ...]:
    """The approximation shipped in spinner.yaml (used when settings give none)."""
    pairs = [(1, 4), (2, 6), (3, None), (4, 2), (5, 3), (6, 1), (1, 5), (2, 3), (3, 2), (4, None),
             (5, 6), (6, 4)]
    return tuple(Segment(i, g) for i, g in pairs)


@dataclass(frozen=True)
class PlanetsSettings:
    players: tuple[str, ...] = ()
    segments: tuple[Segment, ...] = field(default_factory=default_segments)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> PlanetsSettings:
        players = tuple(str(p).lower() for p in data.get("players", []))
        raw = data.get("spinner")
        segments = (tuple(Segment(int(i), None if g is None else int(g)) for i, g in raw)
                    if raw else default_segments())
        return cls(players, segments)


@dataclass
class Ship:
    """One G-Force player: its color, optional name, Monster cards and where it is."""

    color: str
    name: str | None = None
    unsafe: int = 0
    safe: int = 0
    at_blast_off: bool = True

    @property
    def label(self) -> str:
        return self.name or self.color.capitalize()

    @property
    def cards(self) -> int:
        return self.unsafe + self.safe


@dataclass
class Turn:
    """What has happened in the current player's turn."""

    blast_off: bool
    spin: Segment | None = None
    intruder_landed: bool = False
    captured: bool = False


def cards_text(n: int) -> str:
    if n == 0:
        return "no Monster cards"
    return plural(n, "Monster card")


def join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def called(ships: Sequence[Ship], possessive: bool = False) -> list[str]:
    """Ships named together, all one way: by their names when every one has a name, else by
    color with a name after it ("Red (Anna)"), never "Blue" beside "Anna"."""
    s = "'s" if possessive else ""
    if all(ship.name for ship in ships):
        return [f"{ship.name}{s}" for ship in ships]
    return [f"{ship.color.capitalize()}{s}" + (f" ({ship.name}{s})" if ship.name else "") for ship in ships]


@dataclass
class PlanetsGame(HandlerGame):
    """Implements the Game protocol of assistant.engine for Battle of the Planets."""

    name: ClassVar[str] = "planets"
    title: ClassVar[str] = "Battle of the Planets"
    speakers: ClassVar[tuple[str, ...]] = (ZARK,)

    settings: PlanetsSettings = field(default_factory=PlanetsSettings)
    ships: list[Ship] = field(default_factory=list)
    current: int = 0
    turn: Turn = field(default_factory=lambda: Turn(blast_off=True))
    pile: int = MONSTER_CARDS
    winner: int | None = None

    # ------------------------------------------------------------------ protocol

    def start(self) -> list[Output]:
        out = [self._say(WELCOME)]
        if self.settings.players:
            return out + self._set_players(list(self.settings.players))
        return out + [self._say(WHO_PLAYS)]

    def advance(self, seconds: float) -> list[Output]:
        return []

    def allowed_intents(self) -> frozenset[str]:
        allowed = {"status", "repeat"}
        if not self.ships:
            return frozenset(allowed | {"players"})
        if self.winner is not None:
            return frozenset(allowed)
        allowed.add("name")
        turn = self.turn
        if turn.blast_off:
            allowed.add("next")
        elif turn.spin is None:
            allowed.add("spin")
        else:
            allowed |= {"next", "earth"}
            if not turn.captured:
                allowed.add("landed_intruder")
                if self._on_board(exclude=self.current):
                    allowed.add("landed_player")
                if not turn.intruder_landed and self._on_board():
                    allowed.add("intruder_landed")
        return frozenset(allowed)

    def next_event_in(self) -> float | None:
        return None

    def is_over(self) -> bool:
        return self.winner is not None

    def clock_running(self) -> bool:
        return False

    # ------------------------------------------------------------------ queries

    @property
    def ship(self) -> Ship:
        return self.ships[self.current]

    def accounted_cards(self) -> int:
        """The pile plus every card in front of a player: always MONSTER_CARDS."""
        return self.pile + sum(s.cards for s in self.ships)

    def _on_board(self, exclude: int | None = None) -> list[int]:
        return [i for i, s in enumerate(self.ships) if not s.at_blast_off and i != exclude]

    # ------------------------------------------------------------------ commands

    def _handlers(self) -> dict[str, Handler]:
        return {"players": self._players, "name": self._name, "spin": self._spin, "next": self._next,
                "landed_intruder": self._landed_intruder, "landed_player": self._landed_player,
                "intruder_landed": self._intruder_landed, "earth": self._earth,
                "status": self._status, "repeat": self._repeat}

    def _players(self, slots: Mapping[str, str]) -> list[Output]:
        colors = [slots[k] for k in ("p1", "p2", "p3", "p4") if k in slots]
        if len(set(colors)) != len(colors):
            raise NotAllowed("Each player needs a ship of a different color. Say the colors again.")
        return self._set_players(colors)

    def _set_players(self, colors: list[str]) -> list[Output]:
        self.ships = [Ship(c) for c in colors]
        self.current = 0
        self.turn = Turn(blast_off=True)
        names = join([c.capitalize() for c in colors])
        return [self._say(f"{names} are playing, in that order. Every ship starts on the Blast-Off area."),
                self._say("You can give names: say, for example, red is Anna."),
                *self._turn_prompt()]

    def _name(self, slots: Mapping[str, str]) -> list[Output]:
        index = self._ship_index(slots["ship"], None)
        name = slots["name"].capitalize()
        for i, other in enumerate(self.ships):
            if i != index and other.label.casefold() == name.casefold():
                raise NotAllowed(f"{name} is already playing the {other.color} ship.")
        self.ships[index].name = name
        return [self._say(f"{self.ships[index].color.capitalize()} is {name}.")]

    def _spin(self, slots: Mapping[str, str]) -> list[Output]:
        segment = self.rng.choice(self.settings.segments)
        self.turn.spin = segment
        return [self._say(segment.text())]

    def _next(self, slots: Mapping[str, str]) -> list[Output]:
        if self.turn.blast_off:
            self.ship.at_blast_off = False
        return self._end_turn()

    def _landed_intruder(self, slots: Mapping[str, str]) -> list[Output]:
        self._check_actor(slots)
        ship = self.ship
        self.turn.captured = True
        if self.pile == 0:
            return [self._say(f"{ship.label} caught the Intruder, but the Monster pile is empty: "
                              "no card to take."), self._say(ROCKET_AWAY), self._say(THEN_NEXT)]
        self.pile -= 1
        ship.unsafe += 1
        out = [self._say(f"{ship.label} caught the Intruder! Take a Monster card. "
                         f"{ship.label} has {cards_text(ship.cards)}, {ship.unsafe} unsafe. "
                         f"{self.pile} left in the pile."),
               self._say(ROCKET_AWAY)]
        if ship.cards >= CARDS_TO_WIN:
            out.append(self._say(f"{ship.label}, head for Earth to win!"))
        return out + [self._say(THEN_NEXT)]

    def _landed_player(self, slots: Mapping[str, str]) -> list[Output]:
        self._check_actor(slots)
        victim_index = self._ship_index(slots.get("victim"), slots.get("victim_name"))
        victim = self.ships[victim_index]
        if victim_index == self.current:
            raise NotAllowed("A ship cannot land on itself.")
        if victim.at_blast_off:
            raise NotAllowed(f"{victim.label} is on the Blast-Off area, not on the board.")
        ship = self.ship
        self.turn.captured = True
        if victim.unsafe == 0:
            why = "no cards" if victim.cards == 0 else "only safe cards"
            first = f"{victim.label} has {why}, so {ship.label} takes nothing."
        else:
            victim.unsafe -= 1
            ship.unsafe += 1
            first = (f"{ship.label} takes an unsafe Monster card from {victim.label}. "
                     f"{ship.label} has {cards_text(ship.cards)}; {victim.label} has "
                     f"{cards_text(victim.cards)}.")
        return [self._say(first), self._say(ROCKET_AWAY_FROM_SHIP), self._say(THEN_NEXT)]

    def _intruder_landed(self, slots: Mapping[str, str]) -> list[Output]:
        if "victim" in slots or "victim_name" in slots:
            index = self._ship_index(slots.get("victim"), slots.get("victim_name"))
        else:
            index = self.current
        victim = self.ships[index]
        if victim.at_blast_off:
            raise NotAllowed(f"{victim.label} is on the Blast-Off area, where the Intruder cannot go.")
        lost = victim.unsafe
        self.turn.intruder_landed = True
        self.pile += lost
        victim.unsafe = 0
        victim.at_blast_off = True
        if lost:
            first = (f"The Intruder got {victim.label}! {victim.label} loses {cards_text(lost)} "
                     f"to the pile, now {self.pile}.")
        else:
            first = f"The Intruder got {victim.label}! No unsafe cards to lose."
        out = [self._say(first),
               self._say(f"{victim.label}, back to the Blast-Off area; blast off on your next turn.")]
        if index == self.current:
            return out + self._end_turn()
        return out

    def _earth(self, slots: Mapping[str, str]) -> list[Output]:
        self._check_actor(slots)
        ship = self.ship
        if ship.unsafe == 0 and ship.cards < CARDS_TO_WIN:  # "only ... to make a card SAFE" (or to win)
            none = "no Monster cards" if ship.cards == 0 else "no unsafe Monster cards"
            raise NotAllowed(f"{ship.label} has {none}, and you can only go to the Earth space to make a "
                             f"card safe. {THEN_NEXT}")
        made_safe = ship.unsafe
        ship.safe += ship.unsafe
        ship.unsafe = 0
        if ship.cards >= CARDS_TO_WIN:
            self.winner = self.current
            return [self._say(f"{ship.label} reached Earth with {cards_text(ship.cards)}!"),
                    self._say(f"{ship.label} wins the Battle of the Planets!")]
        ship.at_blast_off = True
        safe = f"{cards_text(made_safe)} made safe; {ship.label} has {ship.safe} safe."
        return [self._say(f"{ship.label} reached Earth! {safe}"),
                self._say(f"{ship.label}, back to the Blast-Off area; blast off on your next turn."),
                *self._end_turn()]

    def _status(self, slots: Mapping[str, str]) -> list[Output]:
        if not self.ships:
            return [self._say(f"No players yet. {WHO_PLAYS}")]
        out = []
        for ship in self.ships:
            where = "at Blast-Off" if ship.at_blast_off else "on the board"
            safe = f", {ship.safe} safe" if ship.cards else ""
            out.append(self._say(f"{ship.label}: {cards_text(ship.cards)}{safe}, {where}."))
        out.append(self._say(f"{plural(self.pile, 'Monster card')} in the pile."))
        if self.winner is None:
            out.append(self._say(f"It is {self.ship.label}'s turn."))
        else:
            out.append(self._say(f"{self.ships[self.winner].label} won."))
        return out

    def _repeat(self, slots: Mapping[str, str]) -> list[Output]:
        if not self.ships:
            return [self._say(WHO_PLAYS)]
        if self.winner is not None:
            ship = self.ships[self.winner]
            return [self._say(f"{ship.label} reached Earth with {cards_text(ship.cards)} and won "
                              "the Battle of the Planets!")]
        return self._turn_prompt()

    # ------------------------------------------------------------------ steps

    def _end_turn(self) -> list[Output]:
        self.current = (self.current + 1) % len(self.ships)
        self.turn = Turn(blast_off=self.ship.at_blast_off)
        return self._turn_prompt()

    def _turn_prompt(self) -> list[Output]:
        ship, turn = self.ship, self.turn
        if turn.blast_off:
            return [self._say(f"{ship.label}, blast off: {BLAST_OFF_RULE}")]
        if turn.spin is None:
            return [self._say(f"{ship.label}'s turn. Say spin.")]
        out = [self._say(f"{ship.label}'s turn. {turn.spin.text()}")]
        if turn.captured:
            return out + [self._say(f"{ship.label}, rocket away, then say next.")]
        return out + [self._say(THEN_NEXT)]

    # ------------------------------------------------------------------ words

    def _ship_index(self, color: str | None, name: str | None) -> int:
        for i, ship in enumerate(self.ships):
            if color is not None and ship.color == color:
                return i
            if name is not None and ship.name is not None and ship.name.casefold() == name.casefold():
                return i
        if color is not None:
            return self._not_playing(color.capitalize())
        return self._not_playing(str(name).capitalize())

    def _not_playing(self, who: str) -> int:
        raise NotAllowed(f"{who} is not playing. The players are {join(called(self.ships))}.")

    def _check_actor(self, slots: Mapping[str, str]) -> None:
        if "ship" not in slots and "name" not in slots:
            return
        index = self._ship_index(slots.get("ship"), slots.get("name"))
        if index != self.current:
            turn, other = called([self.ship, self.ships[index]], possessive=True)
            raise NotAllowed(f"It is {turn} turn, not {other}.")

    def _not_now(self, command: Command) -> str:
        intent = command.intent
        if not self.ships:
            return f"First tell me who is playing. {WHO_PLAYS.partition('? ')[2]}"
        if self.winner is not None:
            return f"The game is over: {self.ships[self.winner].label} won. Say new game to play again."
        ship, turn = self.ship.label, self.turn
        if intent != "name" and ("ship" in command.slots or "name" in command.slots):
            self._check_actor(command.slots)
        if intent == "players":
            return (f"The players are already set: {join([s.label for s in self.ships])}. "
                    "Say new game to change them.")
        if turn.blast_off:
            if intent == "spin":
                return f"{ship} blasts off this turn: no spin. Put your ship on a red dot, then say next."
            return (f"It is {ship}'s blast-off turn: no spin, so nothing lands on anything. "
                    f"Say next when {ship} has blasted off.")
        if turn.spin is None:
            if intent == "next":
                return f"{ship} has not spun yet. Say spin."
            return f"Spin first: say spin. It is {ship}'s turn."
        if intent == "spin":
            return f"{ship} already spun: {turn.spin.text()} Say next to end the turn."
        if intent == "intruder_landed":
            if turn.intruder_landed:
                return "The Intruder moves only once a turn."
            if turn.captured:
                return f"The Intruder moves before {ship}'s ship, so it cannot land on anyone now."
            return "No ship is on the board for the Intruder to land on."
        if intent in ("landed_intruder", "landed_player"):
            if turn.captured:
                return f"{ship} already landed on someone this turn: rocket away, then say next."
            return "No other ship is on the board."
        return "Not now."
