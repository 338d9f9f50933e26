"""Battle of the Planets: seeded random games (RANDOM_GAMES, tests/harness.py), checked against
invariants at every step.

A random table of 2-4 players reports random happenings (allowed or not). The test keeps
its own book of where every Monster card is, by the rules, and checks the engine against
it: all 12 cards are always in the pile or in front of a player, no count goes below
zero, a refused command changes nothing, blast-off turns never spin, and every game ends
with a winner who reached Earth holding at least three cards.
"""

from __future__ import annotations

import random
from typing import Any

from assistant.engine import Command, Say
from assistant.games import planets
from assistant.games.planets.engine import CARDS_TO_WIN, MONSTER_CARDS, PlanetsGame
from tests.harness import RANDOM_GAMES, handle_or_refuse

GAMES = RANDOM_GAMES  # tests/harness.py
COLORS = ["red", "blue", "green", "yellow", "white", "orange"]
NAMES = ["anna", "ben", "mark", "zoe"]
ALL_INTENTS = ["players", "name", "spin", "next", "landed_intruder", "landed_player", "intruder_landed",
               "earth", "status", "repeat"]


def snapshot(g: PlanetsGame) -> Any:
    ships = tuple((s.color, s.name, s.unsafe, s.safe, s.at_blast_off) for s in g.ships)
    t = g.turn
    return ships, g.current, (t.blast_off, t.spin, t.intruder_landed, t.captured), g.pile, g.winner


def who(r: random.Random, g: PlanetsGame, actor: bool) -> dict[str, str]:
    """Sometimes nobody named (the player whose turn it is), else a color or a name, right or wrong."""
    if actor and r.random() < 0.5:
        return {}
    key_color, key_name = ("ship", "name") if actor else ("victim", "victim_name")
    if g.ships and r.random() < 0.8:
        ship = g.ships[g.current] if actor and r.random() < 0.8 else r.choice(g.ships)
        if ship.name and r.random() < 0.5:
            return {key_name: ship.name.lower()}
        return {key_color: ship.color}
    return {key_color: r.choice(COLORS)} if r.random() < 0.7 else {key_name: r.choice(NAMES)}


def random_command(r: random.Random, g: PlanetsGame, intent: str) -> Command:
    if intent == "players":
        count = r.randint(2, 4)
        colors = r.sample(COLORS, count) if r.random() < 0.9 else [r.choice(COLORS)] * count
        return Command(intent, {f"p{i + 1}": c for i, c in enumerate(colors)})
    if intent == "name":
        return Command(intent, {"ship": r.choice(COLORS), "name": r.choice(NAMES)})
    if intent in ("landed_intruder", "earth"):
        return Command(intent, who(r, g, actor=True))
    if intent == "landed_player":
        return Command(intent, {**who(r, g, actor=True), **who(r, g, actor=False)})
    if intent == "intruder_landed":
        return Command(intent, who(r, g, actor=False) if r.random() < 0.8 else {})
    return Command(intent)


def choose_intent(r: random.Random, g: PlanetsGame) -> str:
    roll = r.random()
    if roll < 0.08:
        return r.choice(ALL_INTENTS)
    allowed = g.allowed_intents() - {"status", "repeat", "name"}
    if roll < 0.11 or not allowed:
        return r.choice(["status", "repeat", "name"])
    if "earth" in allowed and g.ships[g.current].cards >= CARDS_TO_WIN and r.random() < 0.7:
        return "earth"
    weights = {"players": 1.0, "spin": 1.0, "next": 0.6, "landed_intruder": 1.0, "landed_player": 0.3,
               "intruder_landed": 0.2, "earth": 0.15}
    options = sorted(allowed)
    return r.choices(options, [weights[o] for o in options])[0]


class Book:
    """The test's own record of the Monster cards, kept by the rules from what was reported."""

    def __init__(self) -> None:
        self.pile = MONSTER_CARDS
        self.unsafe: dict[str, int] = {}
        self.safe: dict[str, int] = {}

    def index(self, g: PlanetsGame, slots: dict[str, str], color: str, name: str) -> int | None:
        for i, ship in enumerate(g.ships):
            if slots.get(color) == ship.color or ship.name and slots.get(name) == ship.name.lower():
                return i
        return None

    def accepted(self, g: PlanetsGame, current: str, cmd: Command, colors: list[str]) -> None:
        slots = dict(cmd.slots)
        if cmd.intent == "players":
            self.unsafe = {c: 0 for c in colors}
            self.safe = {c: 0 for c in colors}
        elif cmd.intent == "landed_intruder" and self.pile:
            self.pile -= 1
            self.unsafe[current] += 1
        elif cmd.intent == "landed_player":
            victim = colors[self.index(g, slots, "victim", "victim_name") or 0]
            if self.unsafe[victim]:
                self.unsafe[victim] -= 1
                self.unsafe[current] += 1
        elif cmd.intent == "intruder_landed":
            found = self.index(g, slots, "victim", "victim_name")
            victim = current if found is None else colors[found]
            self.pile += self.unsafe[victim]
            self.unsafe[victim] = 0
        elif cmd.intent == "earth":
            self.safe[current] += self.unsafe[current]
            self.unsafe[current] = 0

    def check(self, g: PlanetsGame) -> None:
        assert g.pile == self.pile >= 0
        for ship in g.ships:
            assert ship.unsafe == self.unsafe[ship.color] >= 0
            assert ship.safe == self.safe[ship.color] >= 0
        assert g.accounted_cards() == MONSTER_CARDS


def play_one(seed: int) -> int:
    r = random.Random(seed)
    g = planets.create(seed, {})
    assert all(isinstance(o, Say) and o.speaker == "ZARK" and o.text for o in g.start())
    book = Book()
    refused = 0
    for _ in range(3_000):
        if g.is_over():
            break
        cmd = random_command(r, g, choose_intent(r, g))
        current = g.ships[g.current].color if g.ships else ""
        colors = [s.color for s in g.ships]
        outputs = handle_or_refuse(g, cmd, snapshot)
        if outputs is None:
            refused += 1
            continue
        book.accepted(g, current, cmd, [s.color for s in g.ships] if cmd.intent == "players" else colors)
        assert all(isinstance(o, Say) and o.speaker == "ZARK" and o.text for o in outputs)
        book.check(g)
        if g.ships and not g.is_over():
            assert not (g.turn.blast_off and g.turn.spin is not None)
            assert g.turn.blast_off == g.ships[g.current].at_blast_off
    assert g.is_over(), f"seed {seed} did not finish"
    assert g.winner is not None
    winner = g.ships[g.winner]
    assert winner.cards >= CARDS_TO_WIN and winner.unsafe == 0
    assert 2 <= len(g.ships) <= 4
    return refused


def test_random_games_account_for_all_twelve_monster_cards() -> None:
    refused = sum(play_one(seed) for seed in range(GAMES))
    assert refused > GAMES
