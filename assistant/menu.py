"""The spoken menu: which game to play, asked aloud and answered by voice or on the keypad.

    "Which game? The Omega Virus, Prologue, the card battle, or Battle of the Planets."

A game's name plays it (the ``Box`` around the menu resumes its unfinished game, if there is
one). On the keypad, R names the next game, 1 the one before, 0 plays the game just named,
and 2 says which key does what. The menu's sentences are data (menu_sentences.yaml, with the
box's own commands merged in), like a game's, so the recognizers' grammars and the text
matcher come from the same source. The games, their titles and the names players may say for
them come from the games' own GameSpecs (the games listed in ``GAMES``, in its order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from assistant.engine import Command, Say
from assistant.games import available, game_spec
from assistant.sentences import SentenceSet
from assistant.session import Announcer, Heard

SPEAKER = "NARRATOR"
#: The menu's own intents; the box's commands come from the session's sentence file.
MENU_INTENTS = frozenset({"choose_game", "repeat"})
#: What the menu takes of the session's sentences (the box answers all but help).
SHARED_INTENTS = ("help", "yes", "no", "main_menu", "louder", "quieter", "volume", "stop_listening",
                  "start_listening", "shut_down", "phone_keypad")
KEYS_HINT = "On the keypad, R names the next game, 1 the one before, and 0 plays it."
NOTHING_NAMED = "Press R to hear the games' names, then 0 to play the one named."


def offered() -> list[str]:
    """The games the menu offers: those installed, in the order of ``GAMES``."""
    return available()


def title(game: str) -> str:
    """How the menu says a game's name (its GameSpec's title)."""
    return game_spec(game).title


def question(games: Sequence[str]) -> str:
    titles = [title(name) for name in games]
    if len(titles) > 1:
        titles[-1] = "or " + titles[-1]
    return "Which game? " + (", " if len(titles) > 2 else " ").join(titles) + "."


def menu_sentences(games: Sequence[str]) -> SentenceSet:
    """The menu's sentences, the list of games made of each game's spoken names."""
    names = {"game": {"values": [{"in": list(game_spec(name).spoken_names), "out": name} for name in games]}}
    sentences = SentenceSet.load_game("assistant", undo=False, filename="menu_sentences.yaml",
                                      session=SHARED_INTENTS, lists=names)
    if games:
        sentences.intents["choose_game"].help = title(games[0]).lower()  # an example of a game's name
    return sentences


def menu_phrases(games: Sequence[str] | None = None) -> list[Say]:
    """Everything the menu says with no live content (for the voice cache)."""
    games = offered() if games is None else games
    texts = [question(games), f"Say again? {question(games)}", NOTHING_NAMED, KEYS_HINT, _help(games),
             *(f"{title(name)}." for name in games)]
    return [Say(SPEAKER, text) for text in texts]


def _help(games: Sequence[str]) -> str:
    return (f"Say a game's name: {', '.join(title(name) for name in games)}. {KEYS_HINT} "
            "You can also say louder, quieter, volume five, stop listening, or shut down.")


@dataclass
class Menu:
    """The menu as the box holds it: like a session, with no game and no clock."""

    announcer: Announcer
    games: list[str] = field(default_factory=offered)
    #: The game picked (by name or keypad); the box then starts it.
    chosen: str | None = None
    #: The box's commands allowed now (set by the box).
    box_commands: frozenset[str] = frozenset()
    paused: bool = False
    finished: bool = False
    time_stands_still: bool = True
    sentences: SentenceSet = field(init=False)
    _named: int | None = None

    def __post_init__(self) -> None:
        self.sentences = menu_sentences(self.games)

    def say(self, text: str) -> None:
        self.announcer.announce([Say(SPEAKER, text)])

    def start(self) -> None:
        self.chosen, self._named = None, None
        self.say(question(self.games))

    def allowed_intents(self) -> frozenset[str]:
        return (MENU_INTENTS | {"help"} | self.box_commands) & frozenset(self.sentences.intents)

    def hear(self, text: str) -> Heard:
        command = self.sentences.preferred(text, self.allowed_intents())
        if command is None:
            self._say_again()
            return Heard.NOT_UNDERSTOOD
        return self.apply(command)

    def apply(self, command: Command) -> Heard:
        if command.intent == "choose_game" and command.slots.get("game") in self.games:
            self.chosen = command.slots["game"]
            return Heard.ACCEPTED
        if command.intent == "repeat":
            self.say(question(self.games))
        elif command.intent == "help":
            self.say(_help(self.games))
        else:
            self._say_again()
            return Heard.NOT_UNDERSTOOD
        return Heard.SESSION

    def _say_again(self) -> None:
        self.say(f"Say again? {question(self.games)}")

    def press(self, buttons: Sequence[str]) -> Heard:
        for button in buttons:
            if button == "0":
                if self._named is None:
                    self.say(NOTHING_NAMED)
                    return Heard.NOT_ALLOWED
                self.chosen = self.games[self._named]
                return Heard.ACCEPTED
            if button in ("R", "1"):
                step = 1 if button == "R" else -1
                start = -1 if step == 1 else 0
                self._named = ((start if self._named is None else self._named) + step) % len(self.games)
                self.say(f"{title(self.games[self._named])}.")
            else:
                self.say(KEYS_HINT)
        return Heard.SESSION

    def advance(self, seconds: float) -> None:
        pass

    def next_event_in(self) -> float | None:
        return None

    def flush_time(self) -> None:
        pass

    def urgency(self) -> float:
        return 0.0

    def close(self) -> None:
        pass
