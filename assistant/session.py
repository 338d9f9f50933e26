"""The session: one game, its journal, and the words between the players and the engine.

Every input path (typed text, the recognizer, the keypad) arrives here as ``hear``,
``press`` or ``advance``. The session matches words with the game's sentence set, says
"say again" for what it does not understand and the rule's reason for what is not
allowed, handles the few commands every game shares (help, pause, resume, new game,
undo), journals each accepted input before its answer is announced, and rebuilds a game
from its journal after a crash. The box's own commands (main menu, volume, listening, shut
down) are in every game's sentences too, but the ``Box`` around the session answers them
(assistant/box.py); a session on its own does not take them.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from assistant.engine import Command, Game, NotAllowed, Output, Say
from assistant.games import GameSpec, all_query_intents, game_spec, spec_of
from assistant.journal import Journal
from assistant.sentences import SentenceSet

#: The box's own commands, in every game's sentences and the menu's, answered by the Box.
BOX_INTENTS = frozenset({"main_menu", "louder", "quieter", "volume", "stop_listening", "start_listening",
                         "shut_down", "phone_keypad"})
#: The box's commands that only some games' own sentences have: handing a color to a new phone
#: (games whose players take colors on phones).
GAME_BOX_INTENTS = frozenset({"phone_hand_over"})
#: Intents every game's sentences have from the session's sentence file (the session answers
#: all but the box's).
SESSION_INTENTS = frozenset({"help", "pause", "resume", "new_game", "yes", "no", "undo"}) | BOX_INTENTS
#: While paused only these are taken.
PAUSED_INTENTS = frozenset({"help", "resume", "new_game", "yes", "no"})
#: Seconds of game time gathered before they are written to the journal.
JOURNAL_EVERY_S = 2.0
#: What the driver (and the live loop) say in every game, word for word, so that
#: `assistant setup` renders them ahead of play (tests check each is said somewhere).
SESSION_PHRASES = (
    "Game resumed.", "Game resumed. Say new game to start over.", "The game is paused. Say resume to go on.",
    "Say yes to start a new game, or no to carry on.", "Say again?", "The game is already paused. Say resume to go on.",
    "Game paused. The clock is stopped. Say resume to go on.", "The game is not paused.", "Resuming.",
    "Start a new game? This one will be lost. Say yes or no.", "Carrying on.", "Undo is not available in this game.",
    "There is nothing to undo.", "Undone.", "I cannot hear you. Check the microphone; the game waits.",
    "I can hear you again.", "If that was not right, say undo. Otherwise, say new game to play again.",
    # the box's (assistant/box.py), said by the game's first speaker
    "Go to the main menu? This game is kept. Say yes or no.", "Shut down? Say yes or no.",
    "Say yes or no.", "I stopped listening, and the game waits. Say start listening to go on.",
    "Listening again.", "I am listening.", "The volume goes from 0 to 10: say volume five, for example.",
    "The volume is at its loudest.", "The volume is at its lowest.", "Shutting down. Goodbye.",
    "Goodbye. The assistant stops; the box stays on, as allow_poweroff is off in the settings.",
    "I could not power off. Switch the box off at the plug.", "Say new game to play again.",
)


class Announcer(Protocol):
    def announce(self, outputs: Sequence[Output]) -> None:
        """Say or show the outputs; returns when they have been spoken."""
        ...


class Front(Protocol):
    """What the players' inputs go to: one game's session, or the box around the menu and games.
    Typed play and the live loop drive either the same way."""

    @property
    def announcer(self) -> Announcer: ...

    @property
    def sentences(self) -> SentenceSet: ...

    @property
    def paused(self) -> bool:
        """Waiting for the players to go on (paused, or not listening)."""
        ...

    @property
    def finished(self) -> bool: ...

    @property
    def time_stands_still(self) -> bool:
        """Game time does not pass now (nothing to play, paused, or the game over)."""
        ...

    def allowed_intents(self) -> frozenset[str]: ...

    def hear(self, text: str) -> Heard: ...

    def apply(self, command: Command) -> Heard: ...

    def press(self, buttons: Sequence[str]) -> Heard: ...

    def advance(self, seconds: float) -> None: ...

    def next_event_in(self) -> float | None: ...

    def flush_time(self) -> None: ...

    def say(self, text: str) -> None: ...

    def asks_before(self, command: Command) -> bool:
        """Whether ``command`` (of an intent marked ``confirms``) asks its own yes-or-no question
        before anything is lost, or has nothing to lose, now (the live loop then does not ask too)."""
        ...

    def close(self) -> None: ...


class PrintAnnouncer:
    """Prints each output as one line (``VIRUS: ...``, ``SOUND: buzz``)."""

    def __init__(self, write: Callable[[str], Any] | None = None) -> None:
        self._write = write

    def announce(self, outputs: Sequence[Output]) -> None:
        for output in outputs:
            if self._write is None:
                print(output.line(), flush=True)
            else:
                self._write(output.line())


class Heard(enum.Enum):
    ACCEPTED = "accepted"          # a game command was applied
    SESSION = "session"            # help, pause, new game...
    NOT_ALLOWED = "not allowed"    # understood, but a rule forbids it now
    NOT_UNDERSTOOD = "not understood"
    IGNORED = "ignored"             # not listening: only "start listening" is taken


def replay(spec: GameSpec | ModuleType, header: Mapping[str, Any], entries: Sequence[Mapping[str, Any]]
           ) -> Game:
    """Rebuild a game from its journal: same seed, same settings, same inputs, same state."""
    spec = spec if isinstance(spec, GameSpec) else spec_of(spec)
    game = spec.create(int(header["seed"]), dict(header.get("settings", {})))
    game.start()
    for entry in effective_entries(entries, spec.query_intents):
        if "cmd" in entry:
            game.handle(Command.from_json(entry["cmd"]))
        elif "advance" in entry:
            game.advance(float(entry["advance"]))
    return game


def effective_entries(entries: Sequence[Mapping[str, Any]],
                      queries: frozenset[str] | None = None) -> list[Mapping[str, Any]]:
    """The entries that still count after each ``undo`` took back the last real command.

    ``queries``: the game's commands that only ask (its GameSpec's), which undo passes over;
    by default those of every known game.
    """
    if queries is None:
        queries = all_query_intents()

    def is_query(entry: Mapping[str, Any]) -> bool:
        return "cmd" in entry and entry["cmd"].get("intent") in queries

    kept: list[Mapping[str, Any]] = []
    for entry in entries:
        if "undo" in entry:
            # Only the command goes: the time that passed since really passed.
            for i in range(len(kept) - 1, -1, -1):
                if "cmd" in kept[i] and not is_query(kept[i]):
                    del kept[i]
                    break
        elif "cmd" in entry or "advance" in entry:
            kept.append(entry)
    return kept


@dataclass
class Session:
    game_name: str
    #: The game's contract (a game package, or a test's bare stand-in module, is taken too).
    spec: GameSpec
    game: Game
    sentences: SentenceSet
    journal: Journal | None
    announcer: Announcer
    seed: int
    settings: dict[str, Any]
    journal_dir: Path | None = None
    idle_pause_after: float | None = None
    paused: bool = False
    confirming_new_game: bool = False
    idle_seconds: float = 0.0
    pending_ms: int = 0
    carry_s: float = 0.0
    last_heard: str = ""
    log: list[str] = field(default_factory=list)
    #: The box's commands allowed now, set by the Box that holds the session (none on its own).
    box_commands: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if isinstance(self.spec, ModuleType):
            self.spec = _spec_or_bare(self.spec, self.game_name)

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, game_name: str, seed: int | None, settings: dict[str, Any], announcer: Announcer,
            journal_dir: Path | None, idle_pause_after: float | None = None) -> Session:
        spec = game_spec(game_name)
        seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31)
        journal = Journal.create(journal_dir, game_name, seed, settings) if journal_dir else None
        return cls(game_name, spec, spec.create(seed, settings), spec.sentences(), journal,
                   announcer, seed, settings, journal_dir, idle_pause_after)

    @classmethod
    def resume(cls, journal: Journal, announcer: Announcer, idle_pause_after: float | None = None
               ) -> Session:
        name = str(journal.header["game"])
        spec = game_spec(name)
        game = replay(spec, journal.header, journal.entries)
        journal.hold()  # played here now: another assistant's new game never gives it up
        settings = dict(journal.header.get("settings", {}))
        return cls(name, spec, game, spec.sentences(), journal, announcer,
                   int(journal.header["seed"]), settings, journal.path.parent, idle_pause_after)

    @property
    def speaker(self) -> str:
        return self.game.speakers[0]

    def say(self, text: str) -> None:
        self.announcer.announce([Say(self.speaker, text)])

    def start(self) -> None:
        self.announcer.announce(self.game.start())
        self._check_over()

    def resumed(self, note: str = "") -> None:
        """Tell the table where things stand after a resume (``note``: what else to say first)."""
        self.say(f"Game resumed. {note}".strip())
        self.announcer.announce(self.game.handle(Command("repeat")))

    # ------------------------------------------------------------------ inputs

    def allowed_intents(self) -> frozenset[str]:
        if self.paused:
            allowed = PAUSED_INTENTS
        elif self.confirming_new_game:
            allowed = frozenset({"yes", "no", "help"})
        else:
            session = SESSION_INTENTS - BOX_INTENTS - {"yes", "no", "resume"}
            if not self.spec.supports_undo:
                session = session - {"undo"}
            allowed = self.game.allowed_intents() | session
        return (allowed | self.box_commands) & frozenset(self.sentences.intents)

    def interpret(self, text: str) -> Command | None:
        """The command meant by ``text``, preferring one allowed now; None if not understood."""
        return self.sentences.preferred(text, self.allowed_intents())

    def hear(self, text: str) -> Heard:
        """Words from a player (typed, or recognized speech)."""
        self.last_heard = text
        command = self.interpret(text)
        if command is None:
            self._say_again()
            return Heard.NOT_UNDERSTOOD
        return self.apply(command)

    def press(self, buttons: Sequence[str]) -> Heard:
        """Private keypad presses (0 1 2 R), for the games that have a keypad."""
        return self.apply(Command("press", {"buttons": " ".join(buttons)}))

    def apply(self, command: Command) -> Heard:
        if command.intent in SESSION_INTENTS:
            return self._session_command(command)
        if self.paused:
            self.say("The game is paused. Say resume to go on.")
            return Heard.NOT_ALLOWED
        if self.confirming_new_game:
            self.say("Say yes to start a new game, or no to carry on.")
            return Heard.NOT_ALLOWED
        self._flush_time()
        try:
            outputs = self.game.handle(command)
        except NotAllowed as reason:
            self.say(str(reason))
            return Heard.NOT_ALLOWED
        self.idle_seconds = 0.0
        if self.journal is not None:
            self.journal.append({"cmd": command.to_json()})
        self.announcer.announce(outputs)
        self._check_over()
        return Heard.ACCEPTED

    def _say_again(self) -> None:
        examples = self._examples(self.allowed_intents() - {"help"})[:4]
        hint = f" You can say: {', '.join(examples)}, or what can I say." if examples else ""
        self.say(f"Say again?{hint}")

    def _examples(self, intents: frozenset[str]) -> list[str]:
        """What "what can I say" offers for these intents, in the game's words of the moment (the
        game's and the session's: the box's own commands are told by the menu's help)."""
        examples = (self.spec.help_example(self.game, text)
                    for text in self.sentences.help_for(intents - BOX_INTENTS))
        return [text for text in examples if text]

    def _session_command(self, command: Command) -> Heard:
        intent = command.intent
        if intent in BOX_INTENTS:  # only the Box around a session takes these
            self._say_again()
            return Heard.NOT_UNDERSTOOD
        if intent == "help":
            examples = self._examples(self.allowed_intents())
            self.say("You can say: " + ", ".join(examples) + ".")
        elif intent == "pause":
            if self.paused:
                self.say("The game is already paused. Say resume to go on.")
            else:
                self._flush_time()
                self.paused = True
                self.say("Game paused. The clock is stopped. Say resume to go on.")
        elif intent == "resume":
            if not self.paused:
                self.say("The game is not paused.")
                return Heard.NOT_ALLOWED
            self.paused = False
            self.idle_seconds = 0.0
            self.say("Resuming.")
            self.announcer.announce(self.game.handle(Command("repeat")))
        elif intent == "new_game":
            if self.game.is_over():  # nothing to lose
                self._new_game()
                return Heard.SESSION
            self.confirming_new_game = True
            self.say("Start a new game? This one will be lost. Say yes or no.")
        elif intent == "yes":
            if not self.confirming_new_game:
                self._say_again()
                return Heard.NOT_UNDERSTOOD
            self.confirming_new_game = False
            self._new_game()
        elif intent == "no":
            if not self.confirming_new_game:
                self._say_again()
                return Heard.NOT_UNDERSTOOD
            self.confirming_new_game = False
            self.say("Carrying on.")
        elif intent == "undo":
            return self._undo()
        return Heard.SESSION

    def _undo(self) -> Heard:
        if self.journal is None or not self.spec.supports_undo:
            self.say("Undo is not available in this game.")
            return Heard.NOT_ALLOWED
        queries = self.spec.query_intents
        kept = effective_entries(self.journal.entries, queries)
        if not any("cmd" in e and e["cmd"].get("intent") not in queries for e in kept):
            self.say("There is nothing to undo.")
            return Heard.NOT_ALLOWED
        self._flush_time()
        self.journal.append({"undo": True})
        self.game = replay(self.spec, self.journal.header, self.journal.entries)
        self.say("Undone.")
        self.announcer.announce(self.game.handle(Command("repeat")))
        return Heard.SESSION

    def _new_game(self) -> None:
        if self.journal is not None and not self.journal.finished:
            self._flush_time()
            self.journal.append({"end": "abandoned"})
        self.seed = self.seed + 1
        self.game = self.spec.create(self.seed, self.settings)
        if self.journal is not None:
            self.journal.release()
        if self.journal_dir is not None:
            self.journal = Journal.create(self.journal_dir, self.game_name, self.seed, self.settings)
        self.paused = False
        self.idle_seconds = 0.0
        self.start()

    # ------------------------------------------------------------------ time

    def advance(self, seconds: float) -> None:
        """Let game time pass (the driver never calls this while the assistant speaks).

        Time reaches the engine in whole milliseconds, so the journal's sum replays exactly.
        """
        if seconds <= 0 or self.paused or self.game.is_over():
            return
        self.carry_s += seconds
        whole_ms = int(self.carry_s * 1000)
        self.carry_s -= whole_ms / 1000
        if whole_ms <= 0:
            return
        seconds = whole_ms / 1000
        if self.idle_pause_after is not None and self.game.clock_running():
            left = self.idle_pause_after - self.idle_seconds
            if seconds >= left:
                self._advance(max(round(left, 3), 0.0))
                if not self.game.is_over():
                    self._flush_time()
                    self.paused = True
                    self.say(f"Nobody has played for {said_duration(self.idle_pause_after)}, so I paused "
                             "the game. Nothing is lost. Say resume to go on.")
                return
        self._advance(seconds)

    def _advance(self, seconds: float) -> None:
        if self.game.clock_running():
            self.idle_seconds += seconds
        outputs = self.game.advance(seconds)
        self.pending_ms += round(seconds * 1000)
        if outputs or self.pending_ms >= JOURNAL_EVERY_S * 1000:
            self._flush_time()
        self.announcer.announce(outputs)
        self._check_over()

    def flush_time(self) -> None:
        """Write the game time gathered so far to the journal now."""
        self._flush_time()

    def _flush_time(self) -> None:
        if self.pending_ms > 0 and self.journal is not None:
            self.journal.append({"advance": self.pending_ms / 1000})
        self.pending_ms = 0

    def next_event_in(self) -> float | None:
        if self.paused:
            return None
        return self.game.next_event_in()

    @property
    def time_stands_still(self) -> bool:
        return self.paused or self.game.is_over()

    def urgency(self) -> float:
        """How urgent the game is now, 0 to 1 (the announcer's BSat1 glitches more)."""
        return self.spec.urgency(self.game)

    @property
    def finished(self) -> bool:
        """Nothing more to play: the game is over, and cannot be taken back by undo (in a game
        with undo, the last entry, the one that ended it, may have been misheard or mistyped)."""
        return self.game.is_over() and not self._can_undo()

    def _can_undo(self) -> bool:
        return self.journal is not None and self.spec.supports_undo

    def undo_left(self) -> bool:
        """The game is over, and its last move can still be taken back: "new game" and "main
        menu" leave it without asking, and that undo is lost."""
        return self.game.is_over() and self._can_undo()

    def asks_before(self, command: Command) -> bool:
        """"new game" asks "Start a new game? This one will be lost." while the game goes on; a game
        over is left at once, with nothing lost unless undo could still take its end back."""
        return command.intent == "new_game" and not self.undo_left()

    def _check_over(self) -> None:
        if self.game.is_over() and self.journal is not None and not self.journal.finished:
            self._flush_time()
            self.journal.append({"end": "over"})
            if self._can_undo():
                self.say("If that was not right, say undo. Otherwise, say new game to play again.")

    def close(self) -> None:
        self._flush_time()
        if self.journal is not None:
            self.journal.release()


def journal_said(journal: Journal) -> str:
    """A journal's game in a few words, for a player choosing what to go on with: "omega-virus
    game from 2026-12-07 17:42 (6 moves, 2 minutes played, 18 minutes left)" (the time left of a
    game with a countdown: its GameSpec's ``time_left`` of the game replayed)."""
    spec: GameSpec | None
    try:
        spec = game_spec(str(journal.header.get("game")))
        queries = spec.query_intents
    except (KeyError, TypeError, ImportError):
        spec, queries = None, all_query_intents()  # a game this version does not know
    kept = effective_entries(journal.entries, queries)
    moves = sum(1 for entry in kept if "cmd" in entry and entry["cmd"].get("intent") not in queries)
    played = journal.game_seconds()
    told = [f"{moves} move{'s' if moves != 1 else ''}" if moves else "no move yet"]
    if played > 0:
        told.append(f"{said_duration(played)} played")
    left = _time_left(spec, journal) if spec is not None else None
    if left is not None:
        told.append(f"{said_duration(left)} left" if left > 0 else "no time left")
    started = str(journal.header.get("started", "an unknown day"))[:16]  # to the minute
    return f"{journal.header.get('game')} game from {started} ({', '.join(told)})"


def _time_left(spec: GameSpec, journal: Journal) -> float | None:
    """The seconds left on the journal's game's countdown (None: no countdown, or the journal
    cannot be replayed by this version)."""
    try:
        return spec.time_left(replay(spec, journal.header, journal.entries))
    except Exception:  # a journal of an older version: named without its time left
        return None


def said_duration(seconds: float) -> str:
    """A span of time as a person says it: "40 seconds", "1 minute", "2 and a half minutes"."""
    if seconds < 59.5:
        whole = max(1, round(seconds))
        return f"{whole} second{'s' if whole != 1 else ''}"
    halves = round(seconds / 30)
    minutes, half = divmod(halves, 2)
    if half:
        return "a minute and a half" if minutes == 1 else f"{minutes} and a half minutes"
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def _spec_or_bare(module: ModuleType, name: str) -> GameSpec:
    """A game package's SPEC; a bare module (a test's stand-in game) gets a contract with
    nothing but the defaults: no undo, no new game."""
    try:
        return spec_of(module)
    except TypeError:
        def cannot_create(seed: int, settings: Mapping[str, Any]) -> Game:
            raise TypeError(f"{name}: no SPEC, so no new game can be made")

        return GameSpec(name, cannot_create, sentences=lambda: SentenceSet({}), fixed_phrases=lambda s: [])
