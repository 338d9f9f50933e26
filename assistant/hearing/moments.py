"""Moments of play: what the box listens for at each point of a game, found by playing it.

In play the recognizer only listens for what the game allows now (``Session.allowed_intents``
beside the box's own commands). ``moments(game)`` finds those sets the way a table reaches
them: seeded random play through the real session (a Command Center, a Prologue round ...),
the moments random play does not reach played to on purpose (``SCENES``: the Virus found,
Prologue's points asked), the box's own moment after "stop listening" (only "start
listening" is heard), and the widest moment with phones as keypads. Each moment is named by
what the game is asking (its phase: "move", "shields", "room code"; the session's "paused",
"yes or no"), so ``assistant transcribe --moment NAME`` can hear a recording as live play
would, and the accuracy benchmark hears each command in the moment that asks for it.
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from assistant.box import ASLEEP_COMMANDS, LISTENING_COMMANDS, PHONE_COMMANDS
from assistant.session import Heard, PrintAnnouncer, Session

#: The main menu's moment (the box's own sentences, not a game's)
MENU = "menu"
#: The moment after "stop listening": only "start listening" is heard
ASLEEP = "asleep"
#: The session's own question, "Start a new game?"
YES_OR_NO = "yes or no"
#: The widest moment of a game with phones as keypads, their commands beside it
WITH_PHONES = "with phones"


@dataclass(frozen=True)
class Moment:
    """A named moment of play: the intents listened for then (the largest set seen under that
    name: the hardest for the recognizer), and how often random play came to it."""

    game: str
    name: str
    intents: frozenset[str]
    seen: int


def box_session(game: str, seed: int) -> Session:
    """A started session of ``game`` listening as the box does without phones: its own
    commands (main menu, volume ...) beside the game's."""
    session = Session.new(game, seed, {}, PrintAnnouncer(lambda line: None), None)
    session.box_commands = LISTENING_COMMANDS - PHONE_COMMANDS
    session.start()
    return session


def moment_name(session: Session) -> str:
    """What the game is asking now, in its own words: the session's pause or "new game?"
    question, else the game's phase (and for games without phases, what a turn awaits)."""
    if session.paused:
        return "paused"
    if session.confirming_new_game:
        return YES_OR_NO
    game: Any = session.game
    name = NAMERS.get(session.game_name, _phase_name)(game)
    return name or "play"


def _phase_name(game: Any) -> str:
    phase = getattr(game, "phase", None)
    if isinstance(phase, enum.Enum):
        return str(phase.value)
    return str(phase) if phase is not None else ""


def _prologue_name(game: Any) -> str:
    name = _phase_name(game)
    return "points asked" if name == "scoring" and getattr(game, "pending", None) is not None else name


def _planets_name(game: Any) -> str:
    """Battle of the Planets has no phases: a turn waits for the spin, then for where it landed."""
    allowed = game.allowed_intents()
    if "players" in allowed:
        return "players asked"
    if getattr(game, "winner", None) is not None:
        return "over"
    if "spin" in allowed:
        return "spin"
    return "after the spin" if "earth" in allowed else "blast off"


NAMERS: dict[str, Callable[[Any], str]] = {"prologue": _prologue_name, "planets": _planets_name}


def _heard(session: Session, *sentences: str) -> None:
    for text in sentences:
        if session.hear(text) is not Heard.ACCEPTED:
            raise AssertionError(f"{session.game_name}: {text!r} was not taken")


def _omega_virus_found(seed: int) -> tuple[str, frozenset[str]]:
    """The Command Center when the Virus is found: "terminate" is asked. Signed on by voice; the
    hand that can terminate is dealt (collecting it takes longer than random play lasts)."""
    from assistant.games.omega_virus.engine import CommandCenter
    from assistant.games.omega_virus.state import AVDS, Phase

    session = box_session("omega-virus", seed)
    _heard(session, "skill zero", "one two", "skip", "skip", "skip")
    cc = session.game
    assert isinstance(cc, CommandCenter) and cc.mover is not None, session.allowed_intents()
    player = cc.players[cc.mover[0]]
    for item in ("red card", "blue card", "yellow card", *AVDS):  # a dealt hand
        cc.supply[item] -= 1
        player.take(item)
    room = " ".join({"0": "zero", "1": "one", "2": "two"}[digit] for digit in cc.virus_room)
    _heard(session, f"explore {room}")
    assert cc.phase is Phase.TERMINATE, cc.phase
    return moment_name(session), session.allowed_intents()


def _prologue_points(seed: int) -> tuple[str, frozenset[str]]:
    """Prologue scoring with the points asked (scoring cards worth "ask", the default): a round
    played, done, the winner named, then the first scoring card's taker."""
    session = box_session("prologue", seed)
    _heard(session, "ready")
    session.advance(60.0)
    _heard(session, "done", "player one", "player two")
    allowed = session.allowed_intents()
    assert "points" in allowed, allowed
    return moment_name(session), allowed


#: Moments seeded random play does not reach, played to on purpose, per game.
SCENES: dict[str, tuple[Callable[[int], tuple[str, frozenset[str]]], ...]] = {
    "omega-virus": (_omega_virus_found,),
    "prologue": (_prologue_points,),
}


def played_moments(game: str, games: int = 30, steps: int = 200, seed: int = 1
                   ) -> Counter[tuple[str, frozenset[str]]]:
    """How often each (name, set of allowed intents) comes up in seeded random play of ``game``,
    with the box's commands beside the game's as in hands-free play without phones; the box's
    moment after "stop listening"; the ``SCENES``; and the widest moment with phones as keypads."""
    rng = random.Random(seed)
    seen: Counter[tuple[str, frozenset[str]]] = Counter()
    pools: dict[str, list[str]] = {}
    session = None
    for n in range(games):
        session = box_session(game, seed + n)
        for _ in range(steps):
            if session.game.is_over():
                break
            allowed = session.allowed_intents()
            seen[moment_name(session), allowed] += 1
            if rng.random() < 0.2:
                session.advance(rng.uniform(0.5, 20.0))
                continue
            intent = rng.choice(sorted(allowed - LISTENING_COMMANDS))  # the game is played, not the box
            if intent not in pools:
                pools[intent] = [text for text, _ in session.sentences.expand([intent], limit=500)]
            if pools[intent]:
                session.hear(rng.choice(pools[intent]))
        asleep = ASLEEP_COMMANDS & frozenset(session.sentences.intents)
        if asleep:
            seen[ASLEEP, asleep] += 1  # once a game: a player said "stop listening"
    for scene in SCENES.get(game, ()):
        seen[scene(seed)] += 1
    if session is not None:
        phones = PHONE_COMMANDS & frozenset(session.sentences.intents)
        if phones and seen:
            widest = max((allowed for _, allowed in seen), key=lambda allowed: (len(allowed), sorted(allowed)))
            seen[WITH_PHONES, widest | phones] += 1
    return seen


def listening_moments(game: str, games: int = 30, steps: int = 200, seed: int = 1) -> Counter[frozenset[str]]:
    """How often each set of allowed intents comes up (``played_moments`` without the names)."""
    counts: Counter[frozenset[str]] = Counter()
    for (_, allowed), count in played_moments(game, games, steps, seed).items():
        counts[allowed] += count
    return counts


def grammar_for(moments: Counter[frozenset[str]], intent: str | None) -> frozenset[str] | None:
    """The largest moment that allows ``intent`` (for None, table talk: of all moments without
    phones); None if none does. "Start listening" is heard where it acts: the moment after "stop
    listening" (awake, it only answers "I am listening.")."""
    if intent is not None and intent in ASLEEP_COMMANDS:
        asleep = [allowed for allowed in moments if intent in allowed and allowed <= ASLEEP_COMMANDS]
        if asleep:
            return asleep[0]
    fitting = [allowed for allowed in moments
               if (intent in allowed if intent is not None else not allowed & PHONE_COMMANDS)]
    return max(fitting, key=lambda allowed: (len(allowed), sorted(allowed))) if fitting else None


@cache
def moments(game: str, games: int = 30, steps: int = 200) -> tuple[Moment, ...]:
    """The named moments of ``game`` found by ``played_moments``, most often seen first; each
    with the largest set of intents seen under its name."""
    largest: dict[str, frozenset[str]] = {}
    counts: Counter[str] = Counter()
    for (name, allowed), count in played_moments(game, games, steps).items():
        counts[name] += count
        if name not in largest or (len(allowed), sorted(allowed)) > (len(largest[name]), sorted(largest[name])):
            largest[name] = allowed
    return tuple(Moment(game, name, largest[name], count) for name, count in counts.most_common())


def menu_moment() -> Moment:
    """The main menu, as the box listens to it (its own commands beside the menu's, no phones)."""
    from assistant.menu import Menu

    menu = Menu(PrintAnnouncer(lambda line: None), box_commands=LISTENING_COMMANDS - PHONE_COMMANDS)
    return Moment("menu", MENU, menu.allowed_intents(), 1)


def find_moment(game: str, name: str) -> Moment:
    """The moment of ``game`` called ``name`` (``menu``: the main menu; "room-code" is "room
    code"); KeyError, naming the known ones, if there is none."""
    name = " ".join(name.lower().replace("-", " ").replace("_", " ").split())
    if name == MENU:
        return menu_moment()
    found = {m.name: m for m in moments(game)}
    if name not in found:
        raise KeyError(f"no moment {name!r} in {game}; known: {', '.join([*found, MENU])}")
    return found[name]
