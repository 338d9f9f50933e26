"""Omega Virus: Prologue: the round clock and the scorekeeper for two players racing in real time.

The assistant cannot see the floor plans. Per round it reminds the table how to set up,
counts "5, 4, 3, 2, 1, GO!" one second apart, optionally calls the elapsed time, and when
a player says "done" it stops the clock, gives that player the round's speed bonus card,
then asks who took each of the three scoring cards (a tie goes to the speed-bonus
winner) and, unless configured, what each card is worth. After round 3 it reads the
final scores and the winner.

Time is counted in whole milliseconds, so ``advance(2)`` and ``advance(1); advance(1)``
give the same result.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assistant.engine import Command, NotAllowed, Output
from assistant.games.handlers import Handler, HandlerGame
from assistant.games.words import minutes_seconds, plural

ROUNDS = 3
SCORING_CARDS = 3
COUNTDOWN_FROM = 5
DEFAULT_NAMES = ("Player 1", "Player 2")
DEFAULT_SPEED_BONUS = (1, 2, 3)

NARRATOR = "NARRATOR"

FIRST_SETUP = (
    "Setup: each player takes one deck of 18 floor plan cards.",
    "Put the key cards in three piles: red, yellow and blue.",
    "Shuffle the location cards and reveal one beside each key pile.",
    "Shuffle the scoring cards and reveal the top three.",
    "Stack the speed bonus cards face up, lowest value on top.",
)
NEXT_SETUP = (
    "Return all key cards to their piles.",
    "Put the location cards in the box and reveal three new ones.",
    "Reveal three new scoring cards.",
    "Both players gather their floor plan cards and shuffle them into new decks.",
)
WELCOME = "Omega Virus: Prologue. Two players, three rounds, real time."
READY_PROMPT = "Say ready when both players are ready."
NAME_HINT = "You can tell me your names: say, for example, player one is Anna."
COUNTDOWN_WORDS = ("5", "4", "3", "2", "1")
GO = "GO!"
WHO_IS_DONE = "Who is done?"


class Phase(enum.Enum):
    SETUP = "setup"              # before a round: reminders said, waiting for "ready"
    COUNTDOWN = "countdown"      # 5, 4, 3, 2, 1, GO!
    RUNNING = "running"          # players build; "done" ends the round
    WHO_DONE = "who done"        # "done" was said without a name: its time is kept while we ask
    SCORING = "scoring"          # who took each scoring card, and its points
    OVER = "over"


_ALWAYS = frozenset({"status", "repeat"})
_ALLOWED = {
    Phase.SETUP: _ALWAYS | {"ready", "name"},
    Phase.COUNTDOWN: _ALWAYS,
    Phase.RUNNING: _ALWAYS | {"done", "time"},
    Phase.WHO_DONE: _ALWAYS | {"done", "who", "not_done"},
    Phase.SCORING: _ALWAYS | {"who"},
    Phase.OVER: _ALWAYS,
}
_ASKING_POINTS = _ALWAYS | {"points"}


@dataclass(frozen=True)
class Award:
    """One card handed out: the speed bonus (card 0) or a scoring card (1-3)."""

    round: int
    card: int
    player: int | None
    points: int


@dataclass(frozen=True)
class PrologueSettings:
    names: tuple[str, str] = DEFAULT_NAMES
    speed_bonus: tuple[int, ...] = DEFAULT_SPEED_BONUS
    #: None: ask the players what each scoring card is worth.
    scoring_card_points: int | None = None
    #: Call the elapsed time every this many seconds of a round; 0: never.
    time_calls_seconds: int = 0

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> PrologueSettings:
        names = [str(n) for n in data.get("players", [])][:2]
        names += list(DEFAULT_NAMES[len(names):])
        bonus = tuple(int(v) for v in data.get("speed_bonus", DEFAULT_SPEED_BONUS))
        if len(bonus) != ROUNDS:
            raise ValueError(f"speed_bonus needs {ROUNDS} values, got {list(bonus)}")
        points = data.get("scoring_card_points")
        return cls((names[0], names[1]), bonus, None if points is None else int(points),
                   int(data.get("time_calls_seconds", 0)))


def duration(ms: int) -> str:
    """Spoken length of time: "45 seconds", "1 minute", "3 minutes 12 seconds"."""
    return minutes_seconds(*divmod(ms // 1000, 60))


@dataclass
class PrologueGame(HandlerGame):
    """Implements the Game protocol of assistant.engine for Omega Virus: Prologue.

    Prologue has no dice: nothing is drawn from ``rng``, which is kept for the common interface.
    """

    name: ClassVar[str] = "prologue"
    title: ClassVar[str] = "Prologue"
    speakers: ClassVar[tuple[str, ...]] = (NARRATOR,)

    settings: PrologueSettings = field(default_factory=PrologueSettings)
    names: list[str] = field(default_factory=list)
    phase: Phase = Phase.SETUP
    round: int = 1
    #: Milliseconds since the countdown started (COUNTDOWN) or since GO (RUNNING).
    clock_ms: int = 0
    round_ms: int = 0
    speed_winner: int | None = None
    card: int = 1
    #: Who gets the current scoring card while its points are asked.
    pending: int | None = None
    pending_tie: bool = False
    awards: list[Award] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.names:
            self.names = list(self.settings.names)

    # ------------------------------------------------------------------ protocol

    def start(self) -> list[Output]:
        out = [self._say(WELCOME)]
        out += [self._say(t) for t in FIRST_SETUP]
        if tuple(self.names) == DEFAULT_NAMES:
            out.append(self._say(NAME_HINT))
        out.append(self._say(READY_PROMPT))
        return out

    def advance(self, seconds: float) -> list[Output]:
        left = round(seconds * 1000)
        out: list[Output] = []
        while left > 0:
            due = self._due_ms()
            if due is None or due > left:
                self.clock_ms += left
                break
            self.clock_ms += due
            left -= due
            out += self._tick()
        return out

    def allowed_intents(self) -> frozenset[str]:
        if self.phase is Phase.SCORING and self.pending is not None:
            return _ASKING_POINTS
        return _ALLOWED[self.phase]

    def next_event_in(self) -> float | None:
        due = self._due_ms()
        return None if due is None else due / 1000

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def clock_running(self) -> bool:
        """Only the 5-second countdown: a round is played in silence, so the session's idle
        pause must not stop the round clock while players build."""
        return self.phase is Phase.COUNTDOWN

    # ------------------------------------------------------------------ scores

    def scores(self) -> list[int]:
        totals = [0, 0]
        for award in self.awards:
            if award.player is not None:
                totals[award.player] += award.points
        return totals

    def winner(self) -> int | None:
        """The winner once the game is over; None for a tie or before the end."""
        a, b = self.scores()
        if self.phase is not Phase.OVER or a == b:
            return None
        return 0 if a > b else 1

    # ------------------------------------------------------------------ commands

    def _handlers(self) -> dict[str, Handler]:
        return {"ready": self._ready, "name": self._name, "done": self._done, "not_done": self._not_done,
                "who": self._who,
                "points": self._points, "time": self._time, "status": self._status,
                "repeat": self._repeat}

    def _ready(self, slots: Mapping[str, str]) -> list[Output]:
        self.phase = Phase.COUNTDOWN
        self.clock_ms = 0
        return [self._say(f"Round {self.round}."), self._say(COUNTDOWN_WORDS[0])]

    def _name(self, slots: Mapping[str, str]) -> list[Output]:
        seat = self._seat(slots)
        spoken = slots["name"].capitalize()
        other = self.names[1 - seat]
        if other.casefold() == spoken.casefold():
            raise NotAllowed(f"{other} is already the other player's name.")
        self.names[seat] = spoken
        return [self._say(f"Player {seat + 1} is {spoken}.")]

    def _done(self, slots: Mapping[str, str]) -> list[Output]:
        player = self._player(slots) if slots else None
        if self.phase is Phase.RUNNING:
            self.round_ms = self.clock_ms
            if player is None:
                self.phase = Phase.WHO_DONE
                return [self._say(f"Stop! {WHO_IS_DONE}"), self._say(self._who_options(tie=False))]
        elif player is None:
            return [self._say(WHO_IS_DONE), self._say(self._who_options(tie=False))]
        assert player is not None
        return self._end_round(player)

    def _not_done(self, slots: Mapping[str, str]) -> list[Output]:
        """A "done" nobody meant (misheard table talk): the round goes on, the time since counted."""
        self.phase = Phase.RUNNING
        return [self._say(f"Keep going! Round {self.round}: {duration(self.clock_ms)}.")]

    def _who(self, slots: Mapping[str, str]) -> list[Output]:
        outcome = slots.get("outcome")
        if self.phase is Phase.WHO_DONE:
            if outcome is not None:
                raise NotAllowed(f"Someone said done: {WHO_IS_DONE} {self._who_options(tie=False)}")
            return self._end_round(self._player(slots))
        points = int(slots["points"]) if "points" in slots else self.settings.scoring_card_points
        if outcome == "nobody":
            if "points" in slots:
                raise NotAllowed("Nobody takes the card, so it gives no points. Say nobody.")
            self.awards.append(Award(self.round, self.card, None, 0))
            return [self._say(f"Nobody takes scoring card {self.card}.")] + self._next_card()
        tie = outcome == "tie"
        player = self.speed_winner if tie else self._player(slots)
        assert player is not None
        if points is None:
            self.pending, self.pending_tie = player, tie
            return [self._say(self._points_question())]
        return self._give_card(player, points, tie)

    def _points(self, slots: Mapping[str, str]) -> list[Output]:
        player, tie = self.pending, self.pending_tie
        assert player is not None
        self.pending, self.pending_tie = None, False
        return self._give_card(player, int(slots["points"]), tie)

    def _time(self, slots: Mapping[str, str]) -> list[Output]:
        return [self._say(f"Round {self.round}: {duration(self.clock_ms)}.")]

    def _status(self, slots: Mapping[str, str]) -> list[Output]:
        where = {
            Phase.SETUP: f"Round {self.round} of {ROUNDS} is next.",
            Phase.COUNTDOWN: f"Round {self.round} is about to start.",
            Phase.RUNNING: f"Round {self.round} of {ROUNDS} is on: {duration(self.clock_ms)}.",
            Phase.WHO_DONE: f"Round {self.round} is stopped: {WHO_IS_DONE}",
            Phase.SCORING: f"Round {self.round}, scoring card {self.card} of {SCORING_CARDS}.",
            Phase.OVER: "The game is over.",
        }[self.phase]
        return [self._say(where), self._say(self._scores_text("Scores"))]

    def _repeat(self, slots: Mapping[str, str]) -> list[Output]:
        if self.phase is Phase.SETUP:
            out = [self._say(f"Round {self.round} of {ROUNDS}.")]
            out += [self._say(t) for t in (FIRST_SETUP if self.round == 1 else NEXT_SETUP)]
            return out + [self._say(READY_PROMPT)]
        if self.phase is Phase.COUNTDOWN:
            return [self._say(f"Round {self.round} starts in {COUNTDOWN_FROM - self.clock_ms // 1000}.")]
        if self.phase is Phase.RUNNING:
            return [self._say(f"Round {self.round} is on: {duration(self.clock_ms)}. "
                              "Say done when someone has all three pieces of equipment.")]
        if self.phase is Phase.WHO_DONE:
            return [self._say(WHO_IS_DONE), self._say(self._who_options(tie=False))]
        if self.phase is Phase.SCORING:
            assert self.speed_winner is not None
            out = [self._say(f"Round {self.round}: {self.names[self.speed_winner]} took the speed bonus.")]
            if self.pending is not None:
                return out + [self._say(self._points_question())]
            return out + [self._say(self._card_question())]
        return self._final()

    # ------------------------------------------------------------------ steps

    def _end_round(self, player: int) -> list[Output]:
        bonus = self.settings.speed_bonus[self.round - 1]
        self.speed_winner = player
        self.awards.append(Award(self.round, 0, player, bonus))
        self.phase = Phase.SCORING
        self.card = 1
        name = self.names[player]
        return [self._say(f"{name} is done! Round {self.round} took {duration(self.round_ms)}."),
                self._say(f"{name} takes the speed bonus card: {plural(bonus, 'point')}."),
                self._say(self._card_question())]

    def _give_card(self, player: int, points: int, tie: bool) -> list[Output]:
        name = self.names[player]
        self.awards.append(Award(self.round, self.card, player, points))
        first = (f"A tie goes to {name}, who took the speed bonus: " if tie else f"{name}: ")
        said = self._say(f"{first}scoring card {self.card}, {plural(points, 'point')}.")
        return [said] + self._next_card()

    def _next_card(self) -> list[Output]:
        if self.card < SCORING_CARDS:
            self.card += 1
            return [self._say(self._card_question())]
        out = [self._say(self._scores_text(f"After round {self.round}"))]
        if self.round == ROUNDS:
            self.phase = Phase.OVER
            return out + self._final()
        self.round += 1
        self.phase = Phase.SETUP
        self.speed_winner = None  # the next round is named once, when "ready" starts it
        return out + [self._say(t) for t in NEXT_SETUP] + [self._say(READY_PROMPT)]

    def _final(self) -> list[Output]:
        a, b = self.scores()
        out = [self._say(self._scores_text("Final scores"))]
        winner = self.winner()
        if winner is None:
            return out + [self._say(f"A tie: {self.names[0]} and {self.names[1]} both have "
                                    f"{plural(a, 'point')}. The rules give no tie-break.")]
        return out + [self._say(f"{self.names[winner]} wins the game!")]

    def _due_ms(self) -> int | None:
        if self.phase is Phase.COUNTDOWN:
            return 1000 - self.clock_ms % 1000
        if self.phase is Phase.RUNNING and self.settings.time_calls_seconds > 0:
            every = self.settings.time_calls_seconds * 1000
            return every - self.clock_ms % every
        return None

    def _tick(self) -> list[Output]:
        if self.phase is Phase.COUNTDOWN:
            second = self.clock_ms // 1000
            if second < COUNTDOWN_FROM:
                return [self._say(COUNTDOWN_WORDS[second])]
            self.phase = Phase.RUNNING
            self.clock_ms = 0
            return [self._say(GO)]
        return [self._say(f"{duration(self.clock_ms)}.")]

    # ------------------------------------------------------------------ words

    def _seat(self, slots: Mapping[str, str]) -> int:
        seat = int(slots["seat"])
        if seat not in (1, 2):
            raise NotAllowed("There are two players: player one and player two.")
        return seat - 1

    def _player(self, slots: Mapping[str, str]) -> int:
        if "seat" in slots:
            return self._seat(slots)
        spoken = slots.get("name", "").casefold()
        for i, name in enumerate(self.names):
            if name.casefold() == spoken:
                return i
        raise NotAllowed(f"Nobody here is called {spoken.capitalize()}. "
                         f"The players are {self.names[0]} and {self.names[1]}.")

    def _who_options(self, tie: bool) -> str:
        a, b = self.names
        return f"Say {a}, {b}, tie, or nobody." if tie else f"Say {a} or {b}, or keep going."

    def _card_question(self) -> str:
        return (f"Scoring card {self.card} of {SCORING_CARDS}: who achieved it? "
                + self._who_options(tie=True))

    def _points_question(self) -> str:
        return f"How many points is scoring card {self.card} worth?"

    def _scores_text(self, label: str) -> str:
        scores = self.scores()
        return f"{label}: " + ", ".join(f"{n} {s}" for n, s in zip(self.names, scores, strict=True)) + "."

    def _not_now(self, command: Command) -> str:
        intent = command.intent
        if self.phase is Phase.OVER:
            return "The game is over. Say new game to play again."
        if intent == "not_done":
            return "Nobody has said done."
        if intent in ("done", "time") and self.phase is Phase.SETUP:
            return f"No round is running. Say ready to start round {self.round}."
        if self.phase is Phase.COUNTDOWN:
            return "Wait for GO!"
        if self.phase is Phase.SCORING:
            if intent == "points":
                return f"First tell me who achieved scoring card {self.card}. {self._who_options(tie=True)}"
            if intent == "who":
                return f"{self._points_question()} Say a number."
            question = self._points_question() if self.pending is not None else self._card_question()
            return f"We are scoring round {self.round}. {question}"
        if self.phase is Phase.WHO_DONE:
            return f"The round is stopped. {WHO_IS_DONE} {self._who_options(tie=False)}"
        if intent == "ready":
            return "A round is already under way."
        if intent == "name":
            return "Names can be given between rounds."
        if intent in ("who", "points"):
            return "No card is being scored now."
        return "Not now."
