"""The game's data as tables: cards, capsules, events, Bosses and Worlds.

The manual does not give the real deck, capsule rows, Pentagon, Boss values or missions,
so they live in YAML files an owner edits (the packaged ones are labelled examples).
``load_tables`` reads and checks the files, reporting a broken one by name and falling
back to the packaged file; ``Tables.from_data`` rebuilds typed tables from the checked,
JSON-ready data stored in the game's settings (so a replay never rereads the files).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.games.data import GameDataError, read_yaml

RACES = ("yellow", "green", "brown", "blue", "red")
KINDS = ("cards", "capsules", "events", "bosses", "worlds")
DURATIONS = {"turn": 2, "two_turns": 4, "battle": None, "instant": 0}
INT_EFFECTS = ("attack", "defense", "set_attack", "set_defense", "damage_dealt", "damage_taken",
               "vitality", "opponent_vitality")
BOOL_EFFECTS = ("shield", "half_damage_taken", "brake")


class DataError(GameDataError):
    """A data file that cannot be played; the message names the file and the entry."""


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Card:
    name: str
    race: str
    attack: int
    defense: int
    vitality: int
    pentagon: int
    skill: str = ""
    number: int | None = None


@dataclass(frozen=True)
class Capsule:
    name: str
    duration: str = "turn"
    attack: int = 0
    defense: int = 0
    set_attack: int | None = None
    set_defense: int | None = None
    damage_dealt: int = 0
    damage_taken: int = 0
    vitality: int = 0
    opponent_vitality: int = 0
    shield: bool = False
    half_damage_taken: bool = False
    brake: bool = False
    say: str = ""

    @property
    def actions(self) -> int | None:
        """How many actions the effect lasts, counting its user's own; None: the whole battle."""
        return DURATIONS[self.duration]

    def describe(self) -> str:
        if self.say:
            return self.say
        parts: list[str] = []
        if self.set_attack is not None:
            parts.append(f"Attack becomes {signed(self.set_attack)}")
        if self.attack:
            parts.append(f"{plus_minus(self.attack)} Attack")
        if self.set_defense is not None:
            parts.append(f"Defense stays at {signed(self.set_defense)}")
        if self.defense:
            parts.append(f"{plus_minus(self.defense)} Defense")
        if self.damage_dealt:
            parts.append(f"{abs(self.damage_dealt)} {'more' if self.damage_dealt > 0 else 'less'} "
                         "damage dealt")
        if self.damage_taken:
            parts.append(f"{abs(self.damage_taken)} {'less' if self.damage_taken < 0 else 'more'} "
                         "damage taken")
        if self.half_damage_taken:
            parts.append("half damage taken")
        if self.shield:
            parts.append("no damage taken")
        if self.brake:
            parts.append("the opponent cannot use a capsule")
        if self.vitality:
            parts.append(f"{plus_minus(self.vitality)} Vitality")
        if self.opponent_vitality:
            parts.append(f"{plus_minus(self.opponent_vitality)} Vitality to the opponent")
        how_long = {"turn": "for one turn", "two_turns": "for two turns",
                    "battle": "for the whole battle", "instant": ""}[self.duration]
        lasting = any((self.set_attack is not None, self.attack, self.set_defense is not None,
                       self.defense, self.damage_dealt, self.damage_taken, self.half_damage_taken,
                       self.shield))
        text = ", ".join(parts) if parts else "no effect"
        return f"{text} {how_long}" if lasting and how_long else text


@dataclass(frozen=True)
class Event:
    name: str
    negative: bool
    amounts: Mapping[str, int]          # damage (negative events) or gain (positive), by race
    resist: tuple[int, ...] = ()
    depths: tuple[int, ...] = ()
    weight: float = 1.0

    def needed(self, pentagon: int) -> int:
        """The attack-die roll a fighter with this Pentagon resistance needs to resist."""
        return self.resist[min(max(pentagon, 0), len(self.resist) - 1)]


@dataclass(frozen=True)
class Boss:
    name: str
    white: tuple[int, ...]
    gray: tuple[int, ...]
    pentagon: int = 0

    @property
    def turns(self) -> int:
        return len(self.white)


@dataclass(frozen=True)
class World:
    name: str
    die: int
    boss: Boss
    bonus: bool = False


@dataclass(frozen=True)
class ScreenRoll:
    """An Extra or Bonus screen: roll the die, add ``plus``, that much Vitality."""

    die: int
    plus: int = 0


@dataclass(frozen=True)
class Tables:
    cards: tuple[Card, ...]
    capsules: Mapping[str, Capsule]
    rows: Mapping[str, tuple[str | None, ...]]
    events: tuple[Event, ...]
    dark_chance: float
    mission: str
    worlds: tuple[World, ...]
    extra: ScreenRoll
    bonus: ScreenRoll
    examples: tuple[str, ...] = field(default=())

    def card(self, number: int) -> Card | None:
        return next((c for c in self.cards if c.number == number), None)

    def row(self, race: str) -> tuple[str | None, ...]:
        return self.rows.get(race, ())

    @classmethod
    def from_data(cls, data: Mapping[str, Any], mission: str = "") -> Tables:
        """Typed tables from checked data (see ``load_tables``); raises DataError."""
        cards = tuple(_card(c, "cards", i) for i, c in enumerate(data["cards"]["cards"]))
        capsules = {name: _capsule(name, spec) for name, spec in data["capsules"]["capsules"].items()}
        rows = {race: tuple(None if s is None else str(s) for s in row)
                for race, row in data["capsules"]["races"].items()}
        for race, row in rows.items():
            for slot in row:
                if slot is not None and slot not in capsules:
                    raise DataError(f"capsules: the {race} row names {slot!r}, which is not a capsule")
        events_data = data["events"]
        events = tuple(_event(e, i) for i, e in enumerate(events_data.get("events") or []))
        bosses = {name: _boss(name, spec) for name, spec in data["bosses"]["bosses"].items()}
        worlds_data = data["worlds"]
        missions = worlds_data["missions"]
        chosen = next((m for m in missions if str(m.get("name", "")) == mission), missions[0])
        worlds = tuple(_world(w, bosses, i) for i, w in enumerate(chosen["worlds"]))
        if not worlds:
            raise DataError(f"worlds: mission {chosen.get('name')!r} has no worlds")
        return cls(cards, capsules, rows, events, float(events_data.get("dark_chance", 0.5)),
                   str(chosen.get("name", "Mission")), worlds,
                   _screen(worlds_data.get("extra"), "extra"), _screen(worlds_data.get("bonus"), "bonus"),
                   tuple(data.get("examples", ())))


# --------------------------------------------------------------------------- words


def signed(n: int) -> str:
    """-3 -> "minus 3" (as spoken)."""
    return f"minus {-n}" if n < 0 else str(n)


def plus_minus(n: int) -> str:
    return f"minus {-n}" if n < 0 else f"plus {n}"


# --------------------------------------------------------------------------- checking


def _int(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"{where} must be a whole number, not {value!r}")
    if lo is not None and value < lo:
        raise DataError(f"{where} must be at least {lo}, not {value}")
    if hi is not None and value > hi:
        raise DataError(f"{where} must be at most {hi}, not {value}")
    return value


def _race(value: Any, where: str) -> str:
    race = str(value).lower()
    if race not in RACES:
        raise DataError(f"{where}: race must be one of {', '.join(RACES)}, not {value!r}")
    return race


def _card(spec: Any, kind: str, i: int) -> Card:
    where = f"{kind}: card {i + 1}"
    if not isinstance(spec, dict):
        raise DataError(f"{where} must be a mapping (name, race, attack, ...)")
    for key in ("name", "race", "attack", "defense", "vitality", "pentagon"):
        if key not in spec:
            raise DataError(f"{where} has no {key}")
    return Card(str(spec["name"]), _race(spec["race"], where),
                _int(spec["attack"], f"{where} attack", -50, 99),
                _int(spec["defense"], f"{where} defense", -50, 50),
                _int(spec["vitality"], f"{where} vitality", 1, 999),
                _int(spec["pentagon"], f"{where} pentagon", 0, 20),
                str(spec.get("skill") or ""),
                _int(spec.get("number", i + 1), f"{where} number", 1, 999))


def _capsule(name: str, spec: Any) -> Capsule:
    where = f"capsules: {name}"
    if not isinstance(spec, dict):
        raise DataError(f"{where} must be a mapping of effects")
    known = {*INT_EFFECTS, *BOOL_EFFECTS, "duration", "say", "source"}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise DataError(f"{where}: unknown effect {unknown[0]!r}; use {', '.join(sorted(known))}")
    duration = str(spec.get("duration", "turn"))
    if duration not in DURATIONS:
        raise DataError(f"{where}: duration must be one of {', '.join(DURATIONS)}, not {duration!r}")
    values: dict[str, Any] = {}
    for key in INT_EFFECTS:
        if key in spec:
            values[key] = _int(spec[key], f"{where} {key}", -99, 99)
    for key in BOOL_EFFECTS:
        if key in spec:
            if not isinstance(spec[key], bool):
                raise DataError(f"{where} {key} must be true or false")
            values[key] = spec[key]
    return Capsule(str(name), duration, say=str(spec.get("say") or ""), **values)


def _event(spec: Any, i: int) -> Event:
    where = f"events: event {i + 1}"
    if not isinstance(spec, dict) or "name" not in spec:
        raise DataError(f"{where} needs a name and a kind")
    where = f"events: {spec['name']}"
    kind = str(spec.get("kind", ""))
    if kind not in ("negative", "positive"):
        raise DataError(f"{where}: kind must be negative or positive, not {kind!r}")
    negative = kind == "negative"
    key = "damage" if negative else "vitality"
    raw = spec.get(key)
    if isinstance(raw, int) and not isinstance(raw, bool):
        amounts = {race: _int(raw, f"{where} {key}", 0, 99) for race in RACES}
    elif isinstance(raw, dict):
        amounts = {_race(r, where): _int(v, f"{where} {key} {r}", 0, 99) for r, v in raw.items()}
        missing = [r for r in RACES if r not in amounts]
        if missing:
            raise DataError(f"{where}: {key} has no value for {', '.join(missing)}")
    else:
        raise DataError(f"{where}: a {kind} event needs {key} (one number, or one per race)")
    resist: tuple[int, ...] = ()
    if negative:
        raw_resist = spec.get("resist")
        if not isinstance(raw_resist, list) or not raw_resist:
            raise DataError(f"{where}: a negative event needs resist (rolls needed by resistance 0, 1, ...)")
        resist = tuple(_int(v, f"{where} resist", 1, 100) for v in raw_resist)
    depths = tuple(_int(d, f"{where} depths", 0, 20) for d in spec.get("depths") or [])
    weight = spec.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, int | float) or weight <= 0:
        raise DataError(f"{where}: weight must be a positive number")
    return Event(str(spec["name"]), negative, amounts, resist, depths, float(weight))


def _boss(name: str, spec: Any) -> Boss:
    where = f"bosses: {name}"
    if not isinstance(spec, dict):
        raise DataError(f"{where} must have white and gray values")
    rows = []
    for key in ("white", "gray"):
        values = spec.get(key)
        if not isinstance(values, list) or not values:
            raise DataError(f"{where}: {key} must list the values of T1 to T8")
        rows.append(tuple(_int(v, f"{where} {key}", -50, 99) for v in values))
    if len(rows[0]) != len(rows[1]):
        raise DataError(f"{where}: white and gray must have the same number of turns")
    return Boss(str(name), rows[0], rows[1], _int(spec.get("pentagon", 0), f"{where} pentagon", 0, 20))


def _world(spec: Any, bosses: Mapping[str, Boss], i: int) -> World:
    where = f"worlds: world {i + 1}"
    if not isinstance(spec, dict):
        raise DataError(f"{where} must have a name, a die and a boss")
    boss = str(spec.get("boss", ""))
    if boss not in bosses:
        raise DataError(f"{where}: boss {boss!r} is not in the bosses file")
    bonus = spec.get("bonus", False)
    if not isinstance(bonus, bool):
        raise DataError(f"{where}: bonus must be true or false")
    return World(str(spec.get("name", f"World {i + 1}")), _int(spec.get("die"), f"{where} die", 2, 100),
                 bosses[boss], bonus)


def _screen(spec: Any, name: str) -> ScreenRoll:
    if spec is None:
        return ScreenRoll(6)
    if not isinstance(spec, dict):
        raise DataError(f"worlds: {name} must have a die")
    return ScreenRoll(_int(spec.get("die", 6), f"worlds: {name} die", 2, 100),
                      _int(spec.get("plus", 0), f"worlds: {name} plus", -99, 99))


_SHAPES: dict[str, tuple[str, type]] = {
    "cards": ("cards", list), "capsules": ("capsules", dict), "events": ("events", list),
    "bosses": ("bosses", dict), "worlds": ("missions", list),
}


def _check_file(kind: str, data: Any) -> None:
    """Check one file alone, so a bad one is named and replaced by the packaged file."""
    key, shape = _SHAPES[kind]
    if not isinstance(data, dict) or not isinstance(data.get(key), shape):
        raise DataError(f"a {kind} file needs a {key!r} {'list' if shape is list else 'mapping'}")
    if kind == "cards":
        cards = [_card(c, "cards", i) for i, c in enumerate(data["cards"])]
        numbers = [c.number for c in cards]
        dupes = sorted({n for n in numbers if n is not None and numbers.count(n) > 1})
        if dupes:
            raise DataError(f"cards: card number {dupes[0]} is used twice")
    elif kind == "capsules":
        for name, spec in data["capsules"].items():
            _capsule(name, spec)
        races = data.get("races")
        if not isinstance(races, dict):
            raise DataError("capsules: a races mapping (race: [slot, slot, ...]) is needed")
        for race, row in races.items():
            _race(race, "capsules: races")
            if not isinstance(row, list) or not 1 <= len(row) <= 6:
                raise DataError(f"capsules: the {race} row must list 1 to 6 slots (null for empty)")
            for slot in row:
                if slot is not None and str(slot) not in data["capsules"]:
                    raise DataError(f"capsules: the {race} row names {slot!r}, which is not a capsule")
    elif kind == "events":
        for i, spec in enumerate(data["events"]):
            _event(spec, i)
        chance = data.get("dark_chance", 0.5)
        if isinstance(chance, bool) or not isinstance(chance, int | float) or not 0 <= chance <= 1:
            raise DataError("events: dark_chance must be a number from 0 to 1")
    elif kind == "bosses":
        for name, spec in data["bosses"].items():
            _boss(name, spec)
    elif kind == "worlds":
        if not data["missions"]:
            raise DataError("worlds: at least one mission is needed")
        for m in data["missions"]:
            if not isinstance(m, dict) or not isinstance(m.get("worlds"), list) or not m["worlds"]:
                raise DataError("worlds: each mission needs a name and a list of worlds")
        _screen(data.get("extra"), "extra")
        _screen(data.get("bonus"), "bonus")


def packaged(kind: str) -> dict[str, Any]:
    data: dict[str, Any] = read_yaml(__package__, f"{kind}.yaml")
    return data


def read_file(kind: str, path: str | Path) -> dict[str, Any]:
    """One user data file, checked alone; raises DataError naming the file."""
    try:
        data = read_yaml(__package__, f"{kind}.yaml", path, what=f"the {kind} file")
    except GameDataError as error:
        raise DataError(str(error)) from error
    try:
        _check_file(kind, data)
    except DataError as error:
        raise DataError(f"{path}: {error}") from error
    return dict(data)


def load_tables(paths: Mapping[str, str], mission: str = "") -> tuple[dict[str, Any], list[str]]:
    """Checked, JSON-ready data for every kind, and the problems found on the way.

    ``paths`` maps a kind to a user file ("" or missing: the packaged example). A file that
    cannot be used is reported and replaced by the packaged one, so the game still runs.
    """
    problems: list[str] = []
    data: dict[str, Any] = {}
    for kind in KINDS:
        path = paths.get(kind) or ""
        if path:
            try:
                data[kind] = read_file(kind, path)
                continue
            except DataError as error:
                problems.append(f"{error}; using the packaged example {kind} instead.")
        data[kind] = packaged(kind)
    try:
        tables = Tables.from_data(data, mission)
    except DataError as error:  # e.g. a world naming a Boss missing from the bosses file
        problems.append(f"{error}; using the packaged example worlds and bosses instead.")
        data["worlds"], data["bosses"] = packaged("worlds"), packaged("bosses")
        tables = Tables.from_data(data, mission)
    names = [str(m.get("name", "")) for m in data["worlds"]["missions"]]
    if mission and mission not in names:
        problems.append(f"games.msx_cards.mission {mission!r} is not in the worlds file "
                        f"(missions: {', '.join(names)}); playing {tables.mission!r}.")
    data["examples"] = [kind for kind in KINDS if data[kind].get("example")]
    return _jsonable(data), problems


def _jsonable(value: Any) -> Any:
    """YAML data as plain JSON types (keys as text), as stored in the journal header."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value
