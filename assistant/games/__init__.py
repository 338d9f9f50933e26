"""The games the assistant referees, and the one written contract between a game and the rest.

Each game package declares a ``SPEC = GameSpec(...)``: how to make a game, its sentences,
its settings, what it says, which of its commands only ask, whether it can take a command
back, what hands-free play changes in its settings, how urgent it is and what it is asking
now (the moments of play hearing listens in); and how it is named
in the spoken menu, who speaks in it with which voice, and how its written names are said.
The session, the menu, the voices and the tools use only this, never a game's name or the
attributes of its engine. A game offered to players is one package and one line in
``GAMES``; docs/adding-a-game.md walks through it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from assistant.engine import Command, Game, Say
from assistant.sentences import SentenceSet

if TYPE_CHECKING:
    from assistant.config import Config

#: command-line name -> package; each package defines ``SPEC``.
GAMES: dict[str, str] = {
    "omega-virus": "assistant.games.omega_virus",
    "prologue": "assistant.games.prologue",
    "msx-cards": "assistant.games.msx_cards",
    "planets": "assistant.games.planets",
}

Settings = dict[str, Any]
#: (command) -> the keypad buttons it stands for, space separated, or None.
Keypad = Callable[[Command], str | None]


def same_settings(settings: Settings, config: Config, has_keypad: bool) -> Settings:
    """Hands-free play changes nothing in most games."""
    return dict(settings)


def calm(game: Game) -> float:
    """A game with no countdown is never urgent."""
    return 0.0


def no_settings(config: Config) -> Settings:
    return {}


@dataclass(frozen=True)
class PrivateRequest:
    """What a game asks one player to enter in private now (a secret code, a shot): a phone
    keypad shows ``prompt`` to that player alone and takes that player's presses alone, while
    the other phones show ``waiting``, which tells nothing of the entry."""

    #: The player asked, by color (the seat a phone joins as).
    color: str
    #: What the asked player's phone says: "Red, enter secret code."
    prompt: str
    #: How many presses make the whole entry, and how many of them are in already.
    presses: int
    entered: int = 0
    #: What every other phone says meanwhile: "Red is entering a secret code."
    waiting: str = ""


def no_private_request(game: Game) -> PrivateRequest | None:
    """A game without private inputs never asks for one."""
    return None


def no_clock(game: Game) -> float | None:
    """A game with no countdown has no time left to tell."""
    return None


def no_moment(game: Game) -> str:
    """A game that names no moments of play is simply in play."""
    return ""


class Table(Protocol):
    """A started game as a scene plays it: ``hear`` takes each sentence said (or raises
    AssertionError), ``advance`` lets game time pass, ``game`` is the engine, to set up what
    play would take too long to reach."""

    @property
    def game(self) -> Game: ...

    def hear(self, *sentences: str) -> None: ...

    def advance(self, seconds: float) -> None: ...


#: Plays a started game to a moment of play that seeded random play does not reach.
Scene = Callable[[Table], None]


@dataclass(frozen=True)
class GameSpec:
    """One game's facts, as data: everything the session and the tools may ask of it."""

    #: The command-line name (``assistant play NAME``), also written in journals.
    name: str
    #: A new game from a seed and settings (as stored in the journal header).
    create: Callable[[int, Mapping[str, Any]], Game]
    #: Every sentence a player can say in this game, the session's own merged in.
    sentences: Callable[[], SentenceSet]
    #: Everything the game says with no live content (rendered ahead into the voice cache).
    fixed_phrases: Callable[[Mapping[str, Any]], list[Say]]
    #: The game's settings from config.yaml, each checked (problems go to ``config.problems``).
    settings_from_config: Callable[[Config], Settings] = no_settings
    #: Commands that only ask: they change nothing, and undo passes over them. ``repeat`` is
    #: always one (every game answers it in every phase).
    query_intents: frozenset[str] = frozenset({"repeat"})
    #: Whether the session may take the last command back (by replaying the journal without it).
    supports_undo: bool = False
    #: What hands-free play changes: ``live_settings(settings, config, has_keypad)``.
    live_settings: Callable[[Settings, Config, bool], Settings] = same_settings
    #: How urgent the game is now, 0 (calm) to 1 (time nearly out): the announcer's glitches.
    urgency: Callable[[Game], float] = calm
    #: The seconds left on the game's countdown (None: it has none), as an unfinished game is
    #: named for a player choosing what to go on with (``session.journal_said``).
    time_left: Callable[[Game], float | None] = no_clock
    #: For a game played on a keypad: ``keypad(config)`` gives the buttons of each command.
    keypad: Callable[[Config], Keypad] | None = None
    #: A help example ("player two") as said now in this game ("Ben"), for "what can I say";
    #: "" leaves out an example that would not be taken now.
    help_example: Callable[[Game, str], str] = lambda game, example: example
    #: Sentence lists whose values (player names, colors) make what is said with them live
    #: content, as do numbers: synthesized as said, not among the fixed phrases.
    live_lists: tuple[str, ...] = ()
    #: Or, for a game that says so little live, a test for exactly those sentences.
    live_content: Callable[[str], bool] | None = None
    #: For a game with private presses (secret codes, shots): what it asks which player to
    #: enter in private now (None: nothing), read from the game's state without changing it;
    #: and the colors a phone keypad may join as (none: the game takes no phones).
    private_request: Callable[[Game], PrivateRequest | None] = no_private_request
    private_colors: tuple[str, ...] = ()
    #: What the game is asking now, in its own words ("move", "shields", "points asked"), read
    #: from its state without changing it ("": nothing to name). Hearing names the moments of
    #: play by it (``assistant transcribe --moment NAME``); and ``scenes`` play to the moments
    #: random play does not reach, so the benchmarks hear their commands where they are asked.
    moment: Callable[[Game], str] = no_moment
    scenes: tuple[Scene, ...] = ()
    #: How the spoken menu says the game ("The Omega Virus"; the name, if none), and what
    #: players may say there to choose it, as sentence templates ("[the] omega virus"; the
    #: title in lower case, if none).
    title: str = ""
    spoken_names: tuple[str, ...] = ()
    #: The game's own characters: a speaker's name in lower case ("virus" for VIRUS) -> its
    #: voice's defaults (voice, length_scale, noise_scale, noise_w_scale, volume, effects), each
    #: editable under ``characters.<name>`` in config.yaml. Other speakers have the narrator's.
    characters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, compare=False)
    #: How names the game writes are said ("BSat1": "B Sat one"); ``voice.pronounce`` adds more.
    pronounce: Mapping[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if "repeat" not in self.query_intents:
            object.__setattr__(self, "query_intents", self.query_intents | {"repeat"})
        if not self.title:
            object.__setattr__(self, "title", self.name)
        if not self.spoken_names:
            object.__setattr__(self, "spoken_names", (self.title.lower(),))

    def is_live(self, text: str) -> bool:
        """Whether a sentence the game says is made with live content (not a fixed phrase)."""
        if self.live_content is not None:
            return self.live_content(text)
        return _live_pattern(self).search(text) is not None


@cache
def _live_pattern(spec: GameSpec) -> re.Pattern[str]:
    """A number, or a value of one of the spec's live lists as the game says it (capitalized)."""
    lists = spec.sentences().lists
    words = sorted({value.out.capitalize() for name in spec.live_lists for value in lists[name]})
    return re.compile(r"\d" + "".join(rf"|\b{re.escape(w)}\b" for w in words))


#: Games registered while running (the tests' example game), by name; not offered to players.
_REGISTERED: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    """Make a game known by name (to the session and the tools) without listing it in GAMES."""
    _REGISTERED[spec.name] = spec


def unregister(name: str) -> None:
    _REGISTERED.pop(name, None)


def game_module(name: str) -> ModuleType:
    if name not in GAMES:
        raise KeyError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}")
    return importlib.import_module(GAMES[name])


def game_spec(name: str) -> GameSpec:
    """The contract of the game called ``name``."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    return spec_of(game_module(name))


def spec_of(module: ModuleType) -> GameSpec:
    """The ``SPEC`` a game package declares."""
    spec = module.__dict__.get("SPEC")
    if not isinstance(spec, GameSpec):
        raise TypeError(f"{module.__name__} declares no SPEC = GameSpec(...)")
    return spec


def specs() -> list[GameSpec]:
    """Every game known now: the ones offered to players, then any registered at run time."""
    return [game_spec(name) for name in available()] + list(_REGISTERED.values())


def characters() -> dict[str, Mapping[str, Any]]:
    """Every known game's characters, by name (the first game to declare a name keeps it)."""
    found: dict[str, Mapping[str, Any]] = {}
    for spec in specs():
        for name, character in spec.characters.items():
            found.setdefault(name, character)
    return found


def pronunciations() -> dict[str, str]:
    """How every known game's written names are said."""
    found: dict[str, str] = {}
    for spec in specs():
        for written, spoken in spec.pronounce.items():
            found.setdefault(written, spoken)
    return found


def all_query_intents() -> frozenset[str]:
    """The commands that only ask, in any game (for reading journals of unknown games)."""
    found: frozenset[str] = frozenset({"repeat"})
    for spec in specs():
        found |= spec.query_intents
    return found


def available() -> list[str]:
    """Games whose package is present."""
    found = []
    for name, package in GAMES.items():
        try:
            importlib.import_module(package)
        except ModuleNotFoundError:
            continue
        found.append(name)
    return found
