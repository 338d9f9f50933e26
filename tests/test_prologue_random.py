"""Omega Virus: Prologue: seeded random games (RANDOM_GAMES, tests/harness.py), checked against
invariants at every step.

A random table says random things (allowed or not) at random moments. The test keeps its
own tally of the cards it handed out and checks the engine's scores against it: points
always equal the speed bonus and scoring cards awarded, a tie goes to the round's
speed-bonus winner, a refused command changes nothing, and every game ends after
exactly three rounds with the right winner.
"""

from __future__ import annotations

import random
from typing import Any

from assistant.engine import Command, Say
from assistant.games import prologue
from assistant.games.prologue.engine import ROUNDS, SCORING_CARDS, Phase, PrologueGame
from tests.harness import RANDOM_GAMES, handle_or_refuse

GAMES = RANDOM_GAMES  # tests/harness.py
NAMES = ["anna", "ben", "sam", "zoe"]
ALL_INTENTS = ["ready", "name", "done", "not_done", "who", "points", "time", "status", "repeat"]


def snapshot(g: PrologueGame) -> Any:
    """Every field (awards and settings are frozen values), so a shallow copy is a full one."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in vars(g).items() if k != "rng"}


def player_slots(r: random.Random, g: PrologueGame) -> dict[str, str]:
    if r.random() < 0.5:
        return {"seat": r.choice("12")}
    return {"name": r.choice(NAMES + [n.lower() for n in g.names])}


def random_command(r: random.Random, g: PrologueGame, intent: str) -> Command:
    slots: dict[str, str] = {}
    if intent == "name":
        slots = {"seat": r.choice("12"), "name": r.choice(NAMES)}
    elif intent == "done" and r.random() < 0.7:
        slots = player_slots(r, g)
    elif intent == "who":
        roll = r.random()
        slots = player_slots(r, g) if roll < 0.6 else {"outcome": "tie" if roll < 0.8 else "nobody"}
        if r.random() < 0.3:
            slots["points"] = str(r.randint(0, 20))
    elif intent == "points":
        slots = {"points": str(r.randint(0, 20))}
    return Command(intent, slots)


class Tally:
    """The test's own book of what was awarded, kept apart from the engine's."""

    def __init__(self, bonus: list[int], configured: int | None) -> None:
        self.bonus = bonus
        self.configured = configured
        self.scores = [0, 0]
        self.cards_awarded = 0
        self.speed_winner: int | None = None
        self.pending: int | None = None
        self.rounds_done = 0

    def player(self, names: list[str], slots: dict[str, str]) -> int:
        if "seat" in slots:
            return int(slots["seat"]) - 1
        return [n.lower() for n in names].index(slots["name"])

    def accepted(self, names: list[str], rnd: int, phase: Phase, cmd: Command, after: PrologueGame) -> None:
        slots = dict(cmd.slots)
        if cmd.intent == "done" and slots or cmd.intent == "who" and phase is Phase.WHO_DONE:
            self.speed_winner = self.player(names, slots)
            self.scores[self.speed_winner] += self.bonus[rnd - 1]
        elif cmd.intent == "who":
            outcome = slots.get("outcome")
            if outcome == "nobody":
                self.cards_awarded += 1
            else:
                who = self.speed_winner if outcome == "tie" else self.player(names, slots)
                assert who is not None
                points = int(slots["points"]) if "points" in slots else self.configured
                if points is None:
                    self.pending = who
                else:
                    self.scores[who] += points
                    self.cards_awarded += 1
        elif cmd.intent == "points":
            assert self.pending is not None
            self.scores[self.pending] += int(slots["points"])
            self.pending = None
            self.cards_awarded += 1
        if rnd != after.round or after.phase is Phase.OVER and phase is not Phase.OVER:
            self.rounds_done += 1
            assert self.cards_awarded == SCORING_CARDS * self.rounds_done


def check(g: PrologueGame, tally: Tally) -> None:
    awarded = sum(a.points for a in g.awards if a.player is not None)
    assert sum(g.scores()) == awarded == sum(tally.scores)
    assert g.scores() == tally.scores
    if g.phase is Phase.SCORING:
        assert g.speed_winner is not None


def check_awards(g: PrologueGame, bonus: list[int]) -> None:
    """Per round: the speed bonus first, at that round's value, then the three scoring cards."""
    for rnd in range(1, ROUNDS + 1):
        cards = [a for a in g.awards if a.round == rnd]
        assert [a.card for a in cards] == [0, 1, 2, 3]
        assert cards[0].points == bonus[rnd - 1] and cards[0].player is not None
        assert all(a.points == 0 for a in cards if a.player is None)


def play_one(seed: int) -> tuple[int, int]:
    r = random.Random(seed)
    bonus = [r.randint(0, 5) for _ in range(ROUNDS)]
    configured = r.choice([None, None, r.randint(0, 5)])
    settings = {"speed_bonus": bonus, "scoring_card_points": configured,
                "time_calls_seconds": r.choice([0, 0, 30, 60])}
    g = prologue.create(seed, settings)
    assert all(isinstance(o, Say) and o.speaker == "NARRATOR" and o.text for o in g.start())
    tally = Tally(bonus, configured)
    refused = 0
    for _ in range(2_000):
        if g.is_over():
            break
        if g.next_event_in() is not None and r.random() < 0.5 or r.random() < 0.05:
            outputs = g.advance(r.choice([0.001, 0.5, 1.0, r.uniform(0, 300)]))
        else:
            roll = r.random()
            if roll < 0.1:
                intent = r.choice(ALL_INTENTS)
            elif roll < 0.15:
                intent = r.choice(["status", "repeat", "time"])
            else:
                intent = r.choice(sorted(g.allowed_intents() - {"status", "repeat"}) or ["repeat"])
            cmd = random_command(r, g, intent)
            names, rnd, phase = list(g.names), g.round, g.phase
            found = handle_or_refuse(g, cmd, snapshot)
            if found is None:
                refused += 1
                continue
            outputs = found
            tally.accepted(names, rnd, phase, cmd, g)
        assert all(isinstance(o, Say) and o.speaker == "NARRATOR" and o.text for o in outputs)
        check(g, tally)
    assert g.is_over(), f"seed {seed} did not finish"
    assert g.round == ROUNDS and tally.rounds_done == ROUNDS
    assert len(g.awards) == ROUNDS * (1 + SCORING_CARDS)
    check_awards(g, bonus)
    a, b = g.scores()
    assert g.winner() == (None if a == b else (0 if a > b else 1))
    return refused, len(g.awards)


def test_random_games_keep_the_score_right() -> None:
    refused = 0
    for seed in range(GAMES):
        n, _ = play_one(seed)
        refused += n
    assert refused > GAMES  # the refusals were really exercised
