"""Moments of play: what the box listens for at each point of a game, found by playing it.

In play the recognizer only listens for what the game allows now (``Session.allowed_intents``
beside the box's own commands). ``moments(game)`` finds those sets the way a table reaches
them: seeded random play through the real session; the moments random play does not reach,
played to on purpose by the game's own ``GameSpec.scenes``; the box's own moment after "stop
listening" (only "start listening" is heard); and the widest moment with phones as keypads.
Each moment is named by what the game is asking now (its ``GameSpec.moment``; the session's
"paused", "yes or no"), so ``assistant transcribe --moment NAME`` can hear a recording as live
play would, and the accuracy benchmark hears each command in the moment that asks for it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cache

from assistant.box import ASLEEP_COMMANDS, LISTENING_COMMANDS, PHONE_COMMANDS
from assistant.engine import Game
from assistant.games import game_spec
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
    question, else what the game's spec names ("play" if it names nothing)."""
    if session.paused:
        return "paused"
    if session.confirming_new_game:
        return YES_OR_NO
    return session.spec.moment(session.game) or "play"


class _Scripted:
    """A box session as a game's scene plays it: every sentence said must be taken."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def game(self) -> Game:
        return self.session.game

    def hear(self, *sentences: str) -> None:
        for text in sentences:
            if self.session.hear(text) is not Heard.ACCEPTED:
                raise AssertionError(f"{self.session.game_name}: {text!r} was not taken")

    def advance(self, seconds: float) -> None:
        self.session.advance(seconds)


def scene_moments(game: str, seed: int) -> list[tuple[str, frozenset[str]]]:
    """The moments the game's scenes play to, each from a fresh box session: (name, allowed)."""
    found = []
    for scene in game_spec(game).scenes:
        session = box_session(game, seed)
        scene(_Scripted(session))
        found.append((moment_name(session), session.allowed_intents()))
    return found


def played_moments(game: str, games: int = 30, steps: int = 200, seed: int = 1
                   ) -> Counter[tuple[str, frozenset[str]]]:
    """How often each (name, set of allowed intents) comes up in seeded random play of ``game``,
    with the box's commands beside the game's as in hands-free play without phones; the box's
    moment after "stop listening"; the game's scenes; and the widest moment with phones as keypads."""
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
    for moment in scene_moments(game, seed):
        seen[moment] += 1
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
