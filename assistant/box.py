"""The box on the table: what the players talk to, around whatever is playing.

A ``Box`` holds the spoken menu or one game's session and answers the commands that belong
to the box rather than to a game, in every game and in the menu:

    (a game that is over)     back to the menu, or, when the game was named on the command
                              line, kept open for "new game" (and "undo")
    main menu / switch game   confirmed; the game is kept (its journal stays unfinished) and
                              saying its name in the menu goes on with it
    louder, quieter, volume N 0 to 10, kept in the state folder across restarts
    stop / start listening    while stopped, only "start listening" is taken; the game waits
    shut down                 confirmed; powers the machine off only with allow_poweroff

Everything else goes to the menu or the session. Typed play (assistant/textplay.py) and
hands-free play (assistant/live/loop.py) drive a box exactly as they drive a session.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from assistant.engine import Command
from assistant.games import GAMES
from assistant.journal import Journal, find_unfinished
from assistant.menu import Menu
from assistant.sentences import SentenceSet
from assistant.session import BOX_INTENTS, GAME_BOX_INTENTS, Announcer, Heard, Session, journal_said
from assistant.volume import LOUDEST, Volume

if TYPE_CHECKING:
    from assistant.config import Config

Settings = dict[str, Any]
#: Every command the box answers.
BOX_COMMANDS = BOX_INTENTS | GAME_BOX_INTENTS
#: The box's commands while it listens: all of them. "Start listening" while it listens answers
#: "I am listening." A player unsure whether it listens says it; left out of the grammar, it was
#: heard as "stop listening" and acted on (bench/results/bench_not_allowed.md, 2026-12-06).
LISTENING_COMMANDS = BOX_COMMANDS
#: All the box listens for after "stop listening", until it is asked to listen again.
ASLEEP_COMMANDS = frozenset({"start_listening"})
#: Listened for only when phones are a keypad source (on_phone set): otherwise they would be
#: one more sentence for table talk to be taken as.
PHONE_COMMANDS = frozenset({"phone_keypad", "phone_hand_over"})


def phone_waiting_said(color: str) -> str:
    """What the table hears when a new phone asks for ``color`` and another phone has it."""
    return f"A new phone is asking for {color.title()}. To let it in, say: give {color.lower()} to the new phone."


def phone_handed_over_said(color: str, handed: bool) -> str:
    """The answer to "give COLOR to the new phone": done, or no phone waits for it."""
    return f"{color.title()} is on the new phone now." if handed else f"No new phone is asking for {color.title()}."


def phone_phrases(colors: Sequence[str]) -> list[str]:
    """Everything the box says about phones for a game whose players take these colors
    (rendered ahead with the game's phrases)."""
    return [line for color in colors for line in (
        phone_waiting_said(color), phone_handed_over_said(color, True), phone_handed_over_said(color, False))]
DEFAULT_POWEROFF = "systemctl poweroff"
#: "phone keypad" when phones are not a keypad source.
NO_PHONE_KEYPAD = "There is no phone keypad. To use phones, add phone to keypad.source in config.yaml."
#: Said when a game with no undo is over and no menu follows: the box stays open for a new game.
PLAY_AGAIN = "Say new game to play again."
#: Said after "Game resumed." when a game is resumed without asking (by name, or hands-free).
RESUME_NOTE = "Say new game to start over."


def at_a_terminal(stream: TextIO | None = None) -> bool:
    """Whether someone can type at this input (stdin by default): not the service's (systemd gives
    it none), nor piped input."""
    try:
        return (sys.stdin if stream is None else stream).isatty()
    except (OSError, ValueError, AttributeError):
        return False


def play_by_typing(game: str | None) -> str:
    """What a player at a terminal can do while the box waits for a speaker or a microphone
    (``game``: the one being played; None: the menu)."""
    if game is None:
        return f"To play by typing now instead: Ctrl-C, then `./start.sh GAME --text` (GAME: {', '.join(GAMES)})."
    return f"To play by typing now instead: Ctrl-C, then `./start.sh {game} --text`."


def replaced_said(unfinished: Journal, resume: str) -> str:
    """What a new game started beside an unfinished one of the same game does to it (``resume``:
    the command that goes on with that one instead)."""
    name = unfinished.header.get("game")
    return (f"Starting a new {name} game. At its first move it replaces the unfinished {journal_said(unfinished)}: "
            f"each game keeps one unfinished game. Until then `{resume}` goes on with that one.")


def run_command(command: Sequence[str]) -> str:
    """Run ``command``; why it failed, or "" when it worked."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode != 0:
        return (done.stderr or done.stdout).strip() or f"{command[0]} exited with {done.returncode}"
    return ""


@dataclass
class Power:
    """What "shut down" does after the goodbye: power the machine off, only when allowed."""

    allowed: bool = False
    command: tuple[str, ...] = tuple(shlex.split(DEFAULT_POWEROFF))
    #: Runs the command and says why it failed ("" when it worked); tests give their own.
    run: Callable[[Sequence[str]], str] = run_command

    @classmethod
    def from_config(cls, config: Config) -> Power:
        allowed = config.value("allow_poweroff")
        text = config.value("poweroff_command")
        try:
            command = tuple(shlex.split(text))
        except ValueError as error:
            command = ()
            config.problems.append(f"{config.where('poweroff_command')}: poweroff_command {text!r} "
                                   f"cannot be read ({error}); using {DEFAULT_POWEROFF!r}.")
        if not command:
            command = tuple(shlex.split(DEFAULT_POWEROFF))
        return cls(allowed, command)


@dataclass
class Games:
    """How the box starts a game the menu names: its settings, where its journal goes, the seed."""

    settings_for: Callable[[str], Settings]
    folder: Path | None
    seed: int | None = None
    idle: float | None = None
    #: Go on with the game's unfinished journal, when there is one (False: a new game, unless the
    #: unfinished one was started in this run and kept by "main menu"; the new game's first move
    #: gives up the unfinished one, as each game keeps one).
    resume: bool = True
    _settings: dict[str, Settings] = field(default_factory=dict, init=False, repr=False)
    #: The sessions made in this run (each one's journal now: "new game" in it makes another).
    _made: list[Session] = field(default_factory=list, init=False, repr=False)

    def settings(self, name: str) -> Settings:
        """The game's settings for a new game (read from the settings once)."""
        if name not in self._settings:
            self._settings[name] = self.settings_for(name)
        return dict(self._settings[name])

    def unfinished(self, name: str) -> Journal | None:
        """The game's unfinished journal to go on with: the newest, when resuming is on; else
        only one this run started (and "main menu" kept). One that is not taken is told of, on
        stderr: a new game never replaces an old one without a word."""
        if self.folder is None:
            return None
        found = find_unfinished(self.folder, name)
        if found is None or self.resume or found.path in {m.journal.path for m in self._made if m.journal}:
            return found
        print(replaced_said(found, f"assistant play {name} --text --resume"), file=sys.stderr, flush=True)
        return None

    def make(self, name: str, announcer: Announcer, unfinished: Journal | None) -> Session:
        """The game called ``name``: resumed from ``unfinished``, or new. Nothing is said yet."""
        if unfinished is not None:
            session = Session.resume(unfinished, announcer, self.idle)
        else:
            session = Session.new(name, self.seed, self.settings(name), announcer, self.folder, self.idle)
        self._made.append(session)
        return session

    def open(self, name: str, announcer: Announcer) -> Session:
        """The game called ``name``, resumed if it is unfinished, else new, its first words said."""
        unfinished = self.unfinished(name)
        session = self.make(name, announcer, unfinished)
        greet(session, unfinished is not None)
        return session


def greet(session: Session, resumed: bool, note: str = RESUME_NOTE) -> None:
    """A game's first words: where things stand after a resume (and ``note``), or its start."""
    if resumed:
        session.resumed(note)
    else:
        session.start()


@dataclass
class Box:
    announcer: Announcer
    games: Games
    volume: Volume = field(default_factory=Volume)
    power: Power = field(default_factory=Power)
    #: After a game that has ended (for good), back to the menu; False: play ends with it.
    menu_after_game: bool = True
    #: The new gain (0 to 1) when the volume changes, and once at the start.
    on_volume: Callable[[float], None] | None = None
    #: Called before a game (by name) or the menu (None) starts.
    on_switch: Callable[[str | None], None] | None = None
    #: "phone keypad": what to say (the page's address and PIN), or None without a phone keypad.
    on_phone: Callable[[], str | None] | None = None
    #: "give red to the new phone": what to say after handing the color over (None: no phone keypad).
    on_hand_over: Callable[[str], str | None] | None = None
    current: Session | Menu | None = None
    listening: bool = True
    #: What a yes would do: "main_menu" or "shut_down" (None: nothing asked).
    confirming: str | None = None
    shutting_down: bool = False
    _closed: bool = False
    #: The game over that PLAY_AGAIN was said for (a game with no undo, named on the command line).
    _told_over: object = None

    def __post_init__(self) -> None:
        if self.volume.problem:
            print(f"volume: {self.volume.problem}.", file=sys.stderr, flush=True)
        if self.on_volume is not None:
            self.on_volume(self.volume.gain)

    # ------------------------------------------------------------------ what is held

    @property
    def held(self) -> Session | Menu:
        if self.current is None:
            raise RuntimeError("the box holds nothing yet: call show_menu() or play()")
        return self.current

    @property
    def session(self) -> Session | None:
        return self.current if isinstance(self.current, Session) else None

    @property
    def in_menu(self) -> bool:
        return isinstance(self.current, Menu)

    def show_menu(self, ask: bool = True) -> None:
        """Hold the menu, and ask its question (``ask`` False: the caller does, with ``held.start()``)."""
        if self.on_switch is not None:
            self.on_switch(None)
        menu = Menu(self.announcer)
        self._hold(menu)
        if ask:
            menu.start()

    def play(self, session: Session) -> None:
        """Hold a session that was made (and started or resumed) by the caller."""
        self._hold(session)

    def start_game(self, name: str) -> None:
        if self.on_switch is not None:
            self.on_switch(name)
        self._hold(self.games.open(name, self.announcer))

    def _hold(self, front: Session | Menu) -> None:
        self.current = front
        front.box_commands = LISTENING_COMMANDS if self.on_phone is not None else LISTENING_COMMANDS - PHONE_COMMANDS

    # ------------------------------------------------------------------ the Front protocol

    @property
    def sentences(self) -> SentenceSet:
        return self.held.sentences

    @property
    def paused(self) -> bool:
        return not self.listening or self.held.paused

    @property
    def finished(self) -> bool:
        """Only a confirmed shut down ends play: a game that is over stays open for "new game"
        (and "undo", in the games that have it), or goes back to the menu."""
        return self.shutting_down

    @property
    def time_stands_still(self) -> bool:
        return not self.listening or self.confirming is not None or self.held.time_stands_still

    def allowed_intents(self) -> frozenset[str]:
        if not self.listening:
            allowed = ASLEEP_COMMANDS
        elif self.confirming is not None:
            allowed = frozenset({"yes", "no", "help"})
        else:
            return self.held.allowed_intents()
        return allowed & frozenset(self.sentences.intents)

    def say(self, text: str) -> None:
        self.held.say(text)

    def urgency(self) -> float:
        return self.held.urgency()

    def asks_before(self, command: Command) -> bool:
        """"shut down" always asks; "main menu" asks while a game goes on (in the menu it says the
        menu again; a game over is left at once), and "new game" as the session says."""
        session = self.session
        if command.intent == "shut_down":
            return True
        if command.intent == "main_menu":
            return session is None or not session.undo_left()
        return session is not None and session.asks_before(command)

    def hear(self, text: str) -> Heard:
        """Words from a player: the box's own commands, or the menu's or the game's."""
        command = self.sentences.preferred(text, self.allowed_intents())
        if command is not None and (command.intent in BOX_COMMANDS or not self.listening or self.confirming):
            return self.apply(command)
        return self._pass_on(lambda held: held.hear(text))

    def apply(self, command: Command) -> Heard:
        intent = command.intent
        if not self.listening and intent == "start_listening":
            self.listening = True
            self.say("Listening again.")
            return Heard.SESSION
        if self.listening and self.confirming is not None:
            return self._answer(intent)
        if self.listening and intent in BOX_COMMANDS:
            return self._box_command(command)
        return self._pass_on(lambda held: held.apply(command))

    def press(self, buttons: Sequence[str]) -> Heard:
        return self._pass_on(lambda held: held.press(buttons))

    def _pass_on(self, take: Callable[[Session | Menu], Heard]) -> Heard:
        """An input for what is held, unless the box is not listening or waits for a yes or no."""
        if not self.listening:
            return Heard.IGNORED
        if self.confirming is not None:
            self.say("Say yes or no.")
            return Heard.NOT_ALLOWED
        heard = take(self.held)
        self._after()
        return heard

    def advance(self, seconds: float) -> None:
        if self.time_stands_still:
            return
        self.held.advance(seconds)
        self._after()

    def next_event_in(self) -> float | None:
        if self.time_stands_still:
            return None
        return self.held.next_event_in()

    def flush_time(self) -> None:
        self.held.flush_time()

    def close(self) -> None:
        """Close what is held; after a confirmed shut down, power off when allowed."""
        if self.current is not None:
            self.current.close()
        if self._closed:
            return
        self._closed = True
        if self.shutting_down and self.power.allowed:
            problem = self.power.run(self.power.command)
            if problem:
                print(f"shut down: {' '.join(self.power.command)} failed: {problem}", file=sys.stderr, flush=True)
                self.say("I could not power off. Switch the box off at the plug.")

    # ------------------------------------------------------------------ the box's commands

    def _after(self) -> None:
        """The menu picked a game: start it. A game ended for good: back to the menu."""
        if isinstance(self.current, Menu) and self.current.chosen is not None:
            name = self.current.chosen
            try:
                self.start_game(name)
            except Exception as error:  # a box with no screen stays up: the menu asks again
                traceback.print_exc()
                menu = self.current
                self.say(f"That game cannot start: {error}")
                if isinstance(menu, Menu):
                    self._hold(menu)
                    menu.start()
        elif isinstance(self.current, Session) and self.current.finished:
            if self.menu_after_game:
                self.current.close()
                self.show_menu()
            elif self._told_over is not self.current.game:
                self._told_over = self.current.game
                self.say(PLAY_AGAIN)

    def _box_command(self, command: Command) -> Heard:
        intent = command.intent
        if intent in ("main_menu", "shut_down"):
            return self._ask(intent)
        if intent == "stop_listening":
            self.held.flush_time()
            self.listening = False
            self.say("I stopped listening, and the game waits. Say start listening to go on.")
        elif intent == "start_listening":
            self.say("I am listening.")
        elif intent == "phone_keypad":
            said = self.on_phone() if self.on_phone is not None else None
            self.say(said or NO_PHONE_KEYPAD)
        elif intent == "phone_hand_over":
            said = self.on_hand_over(command.slots["color"]) if self.on_hand_over is not None else None
            self.say(said or NO_PHONE_KEYPAD)
        elif intent in ("louder", "quieter"):
            step = 1 if intent == "louder" else -1
            level = self.volume.level + step
            if not 0 <= level <= LOUDEST:
                self.say("The volume is at its loudest." if step > 0 else "The volume is at its lowest.")
                return Heard.NOT_ALLOWED
            self._set_volume(level)
        elif intent == "volume":
            try:
                level = int(command.slots.get("level", ""))
            except ValueError:
                level = -1
            if not 0 <= level <= LOUDEST:
                self.say("The volume goes from 0 to 10: say volume five, for example.")
                return Heard.NOT_ALLOWED
            self._set_volume(level)
        return Heard.SESSION

    def _set_volume(self, level: int) -> None:
        kept = self.volume.set(level)
        if self.on_volume is not None:
            self.on_volume(self.volume.gain)
        if not kept:
            print(f"volume: {self.volume.problem}; it is used until the assistant stops.", file=sys.stderr,
                  flush=True)
        self.say(f"Volume {level}.")

    def _ask(self, intent: str) -> Heard:
        if intent == "main_menu":
            if isinstance(self.current, Menu):
                self.held.apply(Command("repeat"))
                return Heard.SESSION
            if self.held.finished or (self.session is not None and self.session.game.is_over()):
                self._to_menu()  # nothing to keep: no need to ask
                return Heard.SESSION
        session = self.session
        if session is not None:
            session.flush_time()
            session.confirming_new_game = False  # one question at a time: this one
        self.confirming = intent
        self.say("Go to the main menu? This game is kept. Say yes or no." if intent == "main_menu"
                 else "Shut down? Say yes or no.")
        return Heard.SESSION

    def _answer(self, intent: str) -> Heard:
        asked = self.confirming
        if intent == "yes":
            self.confirming = None
            if asked == "main_menu":
                self._to_menu()
            else:
                self._shut_down()
            return Heard.SESSION
        if intent == "no":
            self.confirming = None
            self.say("Carrying on.")
            return Heard.SESSION
        self.say("Say yes or no.")
        return Heard.NOT_ALLOWED if intent != "help" else Heard.SESSION

    def _to_menu(self) -> None:
        self.held.close()
        self.show_menu()

    def _shut_down(self) -> None:
        self.held.close()
        self.shutting_down = True
        if self.power.allowed:
            self.say("Shutting down. Goodbye.")
        else:
            self.say("Goodbye. The assistant stops; the box stays on, as allow_poweroff is off in the settings.")
