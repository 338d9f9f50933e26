"""The live loop: microphone and keypad in, voices out, one session in the middle.

Half-duplex: what the microphone hears while the assistant speaks, plus a short tail, is
dropped and the recognizer reset, and key presses made while it speaks do nothing (the
rulebook: buttons pressed while the computer talks have no effect). The game clock only
moves between answers. When a partial result already is a whole command that is allowed
now and cannot grow into another, the loop acts on it without waiting for the silence
that ends the utterance. A microphone that is missing, busy or unplugged is reported and
retried; the clock stands still meanwhile, so nothing is lost.

Push-to-talk (``listen: push-to-talk``): the microphone is dropped like the assistant's own
voice unless a talk key opened it. A press, when the assistant is quiet, plays a short cue and
listens for one utterance: until the recognizer ends one that had words, or ``talk_seconds``
pass; then it is closed again, so table talk between presses is never heard at all.

What the ear gives at the end of an utterance is typed, and what play does with it is one pure rule
(``policy.decide``) that the loop carries out and the benchmarks count by: a command
heard is acted on; a command not allowed now has the game say why; words the hybrid ran out of time
on (hearing.budget_seconds) are answered "Say again?" at once; anything else not understood is let
go silently (table talk), except the same command missed twice running (``again_seconds``: Whisper's
veto dropped it, or Whisper wrote something near it, ``NearMiss``): the player said it again, and it
is taken with doubt. A command heard with doubt (``Doubted``) whose intent is ``harmless``
(sentences files: repeat, help, status, volume...) is let go as a near miss: said again at once, it
is acted on without a question (asking "Status?" costs what acting does); with push-to-talk it is
acted on at once. One whose intent ``confirms`` (it asks its own question: new game, main menu, shut
down; the front says whether it does now) is acted on; any other (a move, stop listening, resume) is
asked about first ("Explore one two zero?"): yes acts on it, no drops it ("Say again?"), another
command replaces it, and no answer within ``confirm_seconds`` drops it. Asking, not acting and
offering a take-back: a wrong explore cannot be undone in the Omega Virus, and in the games that
have "undo" a wrong move has already told the table what it revealed.

The loop drives a ``Front``: one game's session, or the box that holds the spoken menu and the
games. When what it holds changes (the menu, another game), ``ear_for`` gives an ear for the
new sentences. ``on_state`` hears each change of state, one of ``STATES``, for a status light.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from assistant.engine import Command, Sound
from assistant.hearing.events import Doubted, NearMiss, NotRecognized, Partial, Transcript
from assistant.hearing.recognizer import Ear
from assistant.live.keypad import TALK, Keypad
from assistant.live.microphone import Block, MicrophoneError
from assistant.live.policy import ANSWERS, Action, Decision, decide
from assistant.live.settings import setting_field
from assistant.memory import give_back_memory
from assistant.sentences import SentenceSet
from assistant.session import Front


class Mic(Protocol):
    block_seconds: float

    def open(self) -> None: ...

    def read(self, timeout: float) -> Block | None: ...

    def alive(self) -> bool: ...

    def drain(self) -> None: ...

    def close(self) -> None: ...


class Speaking(Protocol):
    ended_at: float

    def is_speaking(self) -> bool: ...


#: What ``on_state`` is told: listening; speaking; paused (stopped listening, or the game
#: paused); problem (the microphone, the speaker or the recognizer is not working).
STATES = ("listening", "speaking", "paused", "problem")
#: How often the state is looked at for ``on_state`` (the assistant may be speaking meanwhile).
STATE_POLL_SECONDS = 0.05
#: Said when an utterance is to be said again (a refused question, the hybrid out of time).
SAY_AGAIN = "Say again?"
#: Played when a talk press opens the microphone (one of the announcer's sounds).
TALK_CUE = Sound("beep")
#: After the cue, the microphone is dropped this long (not ``mute_tail_seconds``): a player
#: who heard the beep starts at once, and a short beep leaves little echo to wait out.
CUE_TAIL_SECONDS = 0.15


@dataclass
class LiveSettings:
    """The loop's settings: those declared in live/settings.py (made from their declarations, read
    from config.yaml by ``schema.read_declared``), then constants."""

    block_seconds: float = setting_field("live.block_seconds")
    mute_tail_seconds: float = setting_field("live.mute_tail_seconds")
    answer_early: bool = setting_field("live.answer_early")
    early_steady_blocks: int = setting_field("live.early_steady_blocks")
    retry_seconds: float = setting_field("live.retry_seconds")
    silent_mic_seconds: float = 3.0
    #: "always", or "push-to-talk": only what is said after a talk press is heard.
    listen: str = setting_field("listen")
    #: Push-to-talk: how long one press listens at most (the utterance under way is then ended).
    talk_seconds: float = setting_field("live.talk_seconds")
    #: How long a question about a doubted command waits for yes or no before it is dropped.
    confirm_seconds: float = 10.0
    #: A command missed (Whisper's veto dropped it, or Whisper wrote something near it), missed
    #: again within this time (the player saying it again, unanswered), is asked about ("Skill
    #: zero?") instead of dropped once more.
    again_seconds: float = 20.0

    @property
    def push_to_talk(self) -> bool:
        return self.listen == "push-to-talk"


@dataclass
class Press:
    button: str
    at: float


@dataclass
class LiveLoop:
    session: Front
    ear: Ear
    mic: Mic
    speaking: Speaking
    keypad: Keypad | None = None
    settings: LiveSettings = field(default_factory=LiveSettings)
    log: Callable[[str], Any] = field(default=lambda message: print(message, file=sys.stderr, flush=True))
    #: (event, seconds from end of the block that completed it) for the latency benchmark.
    on_action: Callable[[Command, bool], Any] | None = None
    #: Called before retrying a microphone that failed (hands-free play closes the speaker
    #: and has PortAudio list the devices again, so a microphone plugged back in is found).
    rescan: Callable[[], None] | None = None
    #: An ear for other sentences (the menu's, another game's), when what the loop drives changes.
    ear_for: Callable[[SentenceSet, Iterable[str]], Ear] | None = None
    #: Told each new state (one of STATES), for a status light; called from a watching thread.
    on_state: Callable[[str], None] | None = None
    presses: list[Press] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _mic_problem: str = ""
    #: Why the recognizer failed on the last block ("" when it works).
    _ear_problem: str = ""
    _last_block_at: float = 0.0
    _dirty: bool = False
    #: the words so far of the utterance under way, when they already are a whole command
    _partial: Partial | None = None
    _steady: int = 0
    #: Push-to-talk: listening is open until this monotonic time (None: closed).
    _talk_until: float | None = None
    #: When the talk cue ended: speech that ended at another time closes listening.
    _cue_ended_at: float | None = None
    _state: str | None = None
    #: A doubted command asked about ("Explore one two zero?"), and when the question was asked.
    _asking: Doubted | None = None
    #: the command acted on last, until the next command heard confirms it (or takes it back)
    _acted: Command | None = None
    _asked_at: float = 0.0
    #: The last command missed (vetoed, or near what Whisper wrote), and when (nothing taken since).
    _missed: tuple[NearMiss, float] | None = None

    def _on_press(self, button: str) -> None:
        with self._lock:
            self.presses.append(Press(button, time.monotonic()))

    def run(self, stop: threading.Event | None = None) -> None:
        stop = stop or threading.Event()
        if self.keypad is not None:
            self.keypad.start(self._on_press)
        self._listen_for()
        watching = self._watch_state()
        last_tick = time.monotonic()
        try:
            while not stop.is_set() and not self.session.finished:
                if not self._mic_ready():
                    stop.wait(self.settings.retry_seconds)
                    last_tick = time.monotonic()  # the game waits while nobody can be heard
                    continue
                now = time.monotonic()
                self.tick(now - last_tick)
                last_tick = time.monotonic()
                acted = self._handle_presses()
                block = self.mic.read(timeout=self.settings.block_seconds / 2)
                if block is not None:
                    self._last_block_at = time.monotonic()
                    acted |= self._handle_block(block)
                if acted:
                    self._listen_for()
                    last_tick = time.monotonic()  # speech time is not game time
        finally:
            if self.keypad is not None:
                self.keypad.stop()
            self.mic.close()
            self.session.close()
            if watching is not None:
                done, watcher = watching
                done.set()
                watcher.join(timeout=1.0)

    def tick(self, seconds: float) -> None:
        """Let game time pass; what it changed (an idle pause, a game over and the menu after it)
        changes what the ear listens for too."""
        self.session.advance(seconds)
        self._listen_for()

    def _listen_for(self) -> None:
        """Have the ear listen for what is allowed now (in new sentences, if they changed), and for
        yes and no while a doubted command is asked about."""
        intents = self.session.allowed_intents()
        if self.ear_for is not None and self.session.sentences is not self.ear.sentences:
            self.ear.reset()
            self._dirty = False
            self._asking = None  # asked in other sentences: gone with them
            self.ear = self.ear_for(self.session.sentences, intents)
        if self._asking is not None and time.monotonic() - self._asked_at > self.settings.confirm_seconds:
            self.log(f"no answer to {self._asking.text!r}?; not acted on")
            self._asking = None
        if self._asking is not None:
            intents = intents | ANSWERS
        self.ear.set_intents(intents)

    # ----------------------------------------------------------------- state

    def state(self) -> str:
        """The state now, one of STATES."""
        if self._mic_problem or self._ear_problem or getattr(self.speaking, "problem", ""):
            return "problem"
        if self.speaking.is_speaking():
            return "speaking"
        if self.session.paused:
            return "paused"
        return "listening"

    def publish_state(self) -> None:
        """Tell ``on_state`` the state, if it changed since it was last told."""
        if self.on_state is None:
            return
        state = self.state()
        if state != self._state:
            self._state = state
            try:
                self.on_state(state)
            except Exception as error:  # a light that fails must not stop the game
                self.log(f"status light: {error}")

    def _watch_state(self) -> tuple[threading.Event, threading.Thread] | None:
        """A thread that publishes the state while the loop runs (the loop itself is busy while the
        assistant speaks), and the event that stops it."""
        if self.on_state is None:
            return None
        done = threading.Event()

        def watch() -> None:
            while True:
                self.publish_state()
                if done.wait(STATE_POLL_SECONDS):
                    return

        watcher = threading.Thread(target=watch, name="live-state", daemon=True)
        watcher.start()
        return done, watcher

    # ----------------------------------------------------------------- devices

    def _mic_ready(self) -> bool:
        # A stream that gives no audio for a while is dead (an unplugged device often stays
        # "active"); the time the assistant spent talking, when nothing was read, does not count.
        heard_at = max(self._last_block_at, self.speaking.ended_at)
        if self.mic.alive() and time.monotonic() - heard_at < self.settings.silent_mic_seconds:
            return True
        if self.mic.alive() and self._last_block_at == 0.0:
            self._last_block_at = time.monotonic()
            return True
        self.mic.close()
        if self._mic_problem and self.rescan is not None:
            try:
                self.rescan()
            except Exception as error:  # the next try goes on without a fresh device list
                self.log(f"microphone: could not refresh the device list: {error}")
        try:
            self.mic.open()
        except MicrophoneError as error:
            problem = str(error)
            if problem != self._mic_problem:
                self._mic_problem = problem
                self.log(f"microphone: {problem} I will keep trying; the game waits.")
                self.session.say("I cannot hear you. Check the microphone; the game waits.")
            return False
        if self._mic_problem:
            self.log("microphone: working again.")
            self.session.say("I can hear you again.")
            self._mic_problem = ""
        self._last_block_at = time.monotonic()
        return True

    # ----------------------------------------------------------------- inputs

    def _muted(self, start: float, end: float) -> bool:
        """Whether audio or a press between ``start`` and ``end`` overlaps speech plus its tail."""
        if self.speaking.is_speaking():
            return True
        cue = self.speaking.ended_at == self._cue_ended_at
        tail = min(CUE_TAIL_SECONDS, self.settings.mute_tail_seconds) if cue else self.settings.mute_tail_seconds
        return start < self.speaking.ended_at + tail

    def _handle_presses(self) -> bool:
        with self._lock:
            presses, self.presses = self.presses, []
        acted = False
        for press in presses:
            if self._muted(press.at, press.at):
                continue
            if press.button == TALK:
                acted |= self._talk()
                continue
            self.session.press([press.button])
            acted = True
        return acted

    # ----------------------------------------------------------------- push-to-talk

    def _talk(self) -> bool:
        """A talk press: open the microphone for one utterance (push-to-talk only)."""
        if not self.settings.push_to_talk:
            return False
        if self.listening():
            self._talk_until = time.monotonic() + self.settings.talk_seconds  # still talking
            return False
        if self._dirty:
            self.ear.reset()
            self._dirty = False
        self.session.announcer.announce([TALK_CUE])
        self._cue_ended_at = self.speaking.ended_at
        self._talk_until = time.monotonic() + CUE_TAIL_SECONDS + self.settings.talk_seconds
        return True

    def listening(self, now: float | None = None) -> bool:
        """Whether what the microphone hears now is taken (always, unless push-to-talk is
        closed: never pressed, its time is up, or the assistant has spoken since)."""
        if not self.settings.push_to_talk:
            return True
        if self._talk_until is None:
            return False
        if self.speaking.ended_at != self._cue_ended_at or self.speaking.is_speaking():
            self._stop_talk()  # half-duplex: the assistant's answer ends the turn
            return False
        return (time.monotonic() if now is None else now) < self._talk_until

    def _stop_talk(self) -> None:
        self._talk_until = None

    def _talk_time_up(self) -> bool:
        """The press's time is up: what was said so far is the utterance, ended here."""
        self._stop_talk()
        self._partial, self._steady = None, 0
        if not self._dirty:
            return False
        return self._handle_final(self.ear.finish())

    # ----------------------------------------------------------------- speech

    def _handle_block(self, block: Block) -> bool:
        start = block.captured_at - self.settings.block_seconds
        if self._muted(start, block.captured_at):
            if self._dirty:
                self.ear.reset()
                self._dirty = False
            return False
        if not self.listening(start):
            if self._talk_until is not None:
                return self._talk_time_up()
            return False
        self._dirty = True
        try:
            event = self.ear.feed(block.audio)
        except Exception as error:  # a box with no screen goes on: the utterance is lost, not the game
            return self._ear_failed(error)
        self._ear_problem = ""
        if isinstance(event, Partial):
            # Partial words can still change: act early only once a whole command held still.
            self._partial, self._steady = (event if event.complete else None), 0
            return self._maybe_early()
        if event is None:
            self._steady += 1
            return self._maybe_early()
        self._partial, self._steady = None, 0
        return self._handle_final(event)

    def _ear_failed(self, error: Exception) -> bool:
        problem = f"{type(error).__name__}: {error}"
        if problem != self._ear_problem:
            self.log(f"recognizer failed ({problem}); what was being said is dropped")
        self._ear_problem = problem
        self._partial, self._steady, self._dirty = None, 0, False
        try:
            self.ear.reset()
        except Exception as reset_error:
            self.log(f"recognizer: could not reset ({reset_error})")
        return False

    def _handle_final(self, event: Transcript | NotRecognized) -> bool:
        """Carry out what play does with what the ear made of an utterance (``policy.decide``)."""
        give_back_memory()  # an utterance's end: Whisper's decoding leaves ~100 MB free in glibc's heaps (~2 ms)
        if event.heard:
            self._stop_talk()  # one utterance per talk press
        self._dirty = False
        return self._carry_out(self._decide(event), early=False)

    def _decide(self, event: Transcript | NotRecognized) -> Decision:
        """``policy.decide`` with the moment: the question open, the near miss kept (if it came
        within ``again_seconds``), and whether the session asks before a doubted command that
        ``confirms`` (asked only then)."""
        missed = None
        if self._missed is not None and time.monotonic() - self._missed[1] <= self.settings.again_seconds:
            missed = self._missed[0]
        intents = self.ear.sentences.intents
        session_asks = False
        if isinstance(event, (Doubted, NearMiss)) and event.command is not None:
            intent = intents.get(event.command.intent)
            session_asks = intent is not None and intent.confirms and self.session.asks_before(event.command)
        return decide(event, intents, asking=self._asking, push_to_talk=self.settings.push_to_talk,
                      session_asks=session_asks, missed=missed)

    def _carry_out(self, decision: Decision, early: bool) -> bool:
        """Do what ``decision`` says: speak, act, remember the question or the near miss."""
        if decision.note:
            self.log(decision.note)
        if decision.action is Action.NOTHING:
            return False
        now = time.monotonic()
        self._asking = decision.asking
        if decision.action is Action.LET_GO:
            assert decision.missed is not None
            self._missed = (decision.missed, now)
            return False
        self._missed = None
        self._confirm(decision)
        if decision.action is Action.ASK:
            assert decision.asking is not None
            self._asked_at = now
            self.session.say(decision.asking.text[:1].upper() + decision.asking.text[1:] + "?")
        elif decision.action is Action.REFUSED:
            assert decision.command is not None
            self.session.apply(decision.command)  # the rule's reason, spoken
        elif decision.action in (Action.ACT, Action.ANSWER_YES):
            assert decision.command is not None
            self._act(decision.command, early)
        else:  # SAY_AGAIN, ANSWER_NO
            self.session.say(SAY_AGAIN)
        return True

    def _confirm(self, decision: Decision) -> None:
        """Tell the ear which commands the table confirmed, for it to learn their voices: a yes to
        a question confirms what it asked; a command acted on is confirmed by the next command
        heard, unless that takes it back (undo)."""
        acted, self._acted = self._acted, None
        if decision.action is Action.ANSWER_YES and decision.command is not None:
            self.ear.confirm(decision.command, "yes")
        elif acted is not None and decision.action is not Action.REFUSED and not (
                decision.command is not None and decision.command.intent == "undo"):
            self.ear.confirm(acted, "acted")
        if decision.action is Action.ACT:
            self._acted = decision.command

    def _maybe_early(self) -> bool:
        """Act on the words so far when they are a whole command (``Partial.command``, matched by
        the Ear) that held still and nothing doubts; else wait for the end of speech."""
        partial = self._partial
        if partial is None or not self.settings.answer_early or self._steady < self.settings.early_steady_blocks:
            return False
        self._partial, self._steady = None, 0
        doubt = self.ear.doubt(partial)
        if doubt or partial.command is None:
            self.log(f"heard {partial.text!r} so far: {doubt}; waiting for the end")
            return False
        self.ear.reset()
        self._dirty = False
        return self._carry_out(self._decide(Transcript(partial.text, command=partial.command)), early=True)

    def _act(self, command: Command, early: bool) -> None:
        self._stop_talk()
        if self.on_action is not None:
            self.on_action(command, early)
        self.session.apply(command)
