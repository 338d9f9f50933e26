"""The arithmetic of a fight: fighters, capsule effects in play, one strike.

Pure functions of their inputs: the die roll is passed in, so a table test can give any
roll it wants. A strike is: roll + the attacker's Attack + the defender's Defense (as
printed, so a Defense of -3 takes off 3); a total of zero or less is no damage; then the
capsules in play change the damage (more dealt, less taken, halved, blocked).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from assistant.games.msx_cards.tables import Capsule, Card, plus_minus, signed

PLAYER = "player"
ENEMY = "enemy"
BOSS = "boss"


@dataclass
class Fighter:
    """A card in play. Vitality changes only through ``change_vitality``, which keeps a ledger."""

    side: str
    race: str
    attack: int
    defense: int
    vitality: int
    pentagon: int
    name: str = ""
    skill: str = ""
    card: int | None = None
    world: int = 0
    capsule_used: bool = False
    start_vitality: int = 0
    changes: list[int] = field(default_factory=list)
    fell_in_world: int | None = None
    fell_to_boss: bool = False
    #: The numbers it came in with (race, attack, defense, vitality, pentagon): the card's.
    printed: tuple[str, int, int, int, int] = ("", 0, 0, 0, 0)

    def __post_init__(self) -> None:
        self.start_vitality = self.vitality
        self.printed = (self.race, self.attack, self.defense, self.vitality, self.pentagon)

    def is_card(self, card: Card) -> bool:
        """Whether this fighter is that card: by its number, or, read out by its numbers, by those."""
        if self.card is not None:
            return self.card == card.number
        return self.printed == (card.race, card.attack, card.defense, card.vitality, card.pentagon)

    def change_vitality(self, delta: int) -> int:
        """Add ``delta`` (never below zero); returns the change actually made."""
        applied = max(delta, -self.vitality)
        self.vitality += applied
        self.changes.append(applied)
        return applied

    def numbers(self) -> str:
        return (f"{self.race}, attack {signed(self.attack)}, defense {signed(self.defense)}, "
                f"vitality {self.vitality}, pentagon {self.pentagon}")


@dataclass
class Effect:
    """A capsule in play: whose, which, and how many actions it still covers (None: the battle)."""

    owner: str
    capsule: Capsule
    left: int | None


@dataclass(frozen=True)
class Strike:
    roll: int
    die: int
    terms: tuple[tuple[int, str], ...]
    total: int
    notes: tuple[str, ...]
    damage: int

    def spoken(self) -> str:
        """'9 on the d12, plus 6 attack, minus 3 defense: 12 damage' (the roll's arithmetic)."""
        text = f"{self.roll} on the d{self.die}"
        for value, label in self.terms:
            if value != 0:
                text += f", {plus_minus(value)} {label}"
        if not self.notes:
            if self.total > 0:
                return f"{text}: {self.total} damage"
            return f"{text}: {signed(self.total)}, no damage"
        text += f": {self.total}; " + "; ".join(self.notes)
        return text + (f": {self.damage} damage" if self.damage > 0 else ": no damage")


def strike(roll: int, die: int, attack: int, defense: int, mine: Sequence[Capsule] = (),
           theirs: Sequence[Capsule] = (), attack_label: str = "attack",
           defense_label: str = "defense") -> Strike:
    """One attack: ``mine`` are the attacker's capsules in play, ``theirs`` the defender's."""
    terms: list[tuple[int, str]] = []
    for capsule in mine:
        if capsule.set_attack is not None:
            attack, attack_label = capsule.set_attack, f"{attack_label} with {capsule.name}"
    terms.append((attack, attack_label))
    terms.extend((c.attack, f"attack from {c.name}") for c in mine if c.attack)
    for capsule in theirs:
        if capsule.set_defense is not None:
            defense, defense_label = capsule.set_defense, f"{defense_label} with {capsule.name}"
    terms.append((defense, defense_label))
    terms.extend((c.defense, f"defense from {c.name}") for c in theirs if c.defense)
    total = roll + sum(v for v, _ in terms)
    damage = max(total, 0)
    notes: list[str] = []
    if damage > 0:
        for capsule in mine:
            if capsule.damage_dealt:
                damage = max(damage + capsule.damage_dealt, 0)
                notes.append(f"{capsule.name} {_adds(capsule.damage_dealt)}")
    for capsule in theirs:
        if damage > 0 and capsule.damage_taken:
            damage = max(damage + capsule.damage_taken, 0)
            notes.append(f"{capsule.name} {_adds(capsule.damage_taken)}")
        if damage > 0 and capsule.half_damage_taken:
            damage //= 2
            notes.append(f"{capsule.name} halves it")
        if damage > 0 and capsule.shield:
            damage = 0
            notes.append(f"{capsule.name} blocks it")
    return Strike(roll, die, tuple(terms), total, tuple(notes), damage)


def _adds(n: int) -> str:
    return f"adds {n}" if n > 0 else f"takes off {-n}"


def pentagon_bonus(mine: int, theirs: int) -> int:
    """+1 initiative for the fighter with more Pentagon resistance; none on a tie."""
    return 1 if mine > theirs else 0
