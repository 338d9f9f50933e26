"""The box in the live loop, with typed words for audio (the text recognizer): the menu's ear
and each game's, switched as the box changes what it holds, and the states a status light is
told. The real devices and recognizer: tests/test_live_menu.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assistant.box import Box, Games
from assistant.config import Config
from assistant.engine import Output
from assistant.games import game_spec
from assistant.hearing.events import Partial, Transcript
from assistant.hearing.recognizer import Ear
from assistant.hearing.text_engine import TextRecognizer
from assistant.live.loop import STATES, LiveLoop, LiveSettings
from assistant.live.microphone import Block, MicrophoneError
from assistant.sentences import SentenceSet
from assistant.volume import Volume
from tests.test_live_push_to_talk import FakeKeypad, FakeMic, Table


def typed_ear(sentences: SentenceSet, intents: Iterable[str]) -> Ear:
    return Ear(TextRecognizer(), sentences, intents)


def live_box(folder: Path, table: Table) -> tuple[LiveLoop, Box, list[SentenceSet]]:
    games = Games(lambda name: game_spec(name).settings_from_config(Config()), folder, 5)
    box = Box(table, games, Volume.load(folder))  # type: ignore[arg-type]
    box.show_menu()
    heard_with: list[SentenceSet] = []

    def ear_for(sentences: SentenceSet, intents: Iterable[str]) -> Ear:
        heard_with.append(sentences)
        return typed_ear(sentences, intents)

    loop = LiveLoop(box, typed_ear(box.sentences, box.allowed_intents()), FakeMic(), table.speaking,
                    FakeKeypad(), LiveSettings(mute_tail_seconds=0.0), log=lambda message: None,
                    ear_for=ear_for)  # type: ignore[arg-type]
    return loop, box, heard_with


def say(loop: LiveLoop, words: str) -> None:
    """One utterance of typed "audio", then the loop listens for what is allowed after it."""
    if loop._handle_block(Block(f"{words}\n".encode(), time.monotonic() + loop.settings.block_seconds)):
        loop._listen_for()


def test_the_menu_and_each_game_are_heard_with_their_own_sentences(tmp_path: Path) -> None:
    table = Table()
    loop, box, heard_with = live_box(tmp_path, table)
    loop._listen_for()
    assert heard_with == []  # the ear it was given is the menu's
    say(loop, "skill zero")  # not a menu sentence: nothing
    assert table.lines[-1].startswith("NARRATOR: Which game?")
    say(loop, "the omega virus")
    assert table.lines[-1] == "BSAT1: Enter skill."
    assert heard_with == [box.sentences] and loop.ear.sentences is box.sentences
    say(loop, "skill zero")
    assert table.lines[-1] == "BSAT1: Red, enter secret code."
    say(loop, "main menu")
    assert "yes" in loop.ear.intents and "skip" not in loop.ear.intents
    say(loop, "yes")
    assert box.in_menu and len(heard_with) == 2 and loop.ear.sentences is box.sentences
    assert "choose_game" in loop.ear.intents
    loop._on_press("R")
    loop._handle_presses()
    loop._on_press("0")
    loop._handle_presses()
    loop._listen_for()
    assert table.lines[-2:] == ["BSAT1: Game resumed. Say new game to start over.", "BSAT1: Red, enter secret code."]
    assert len(heard_with) == 3
    say(loop, "stop listening")
    assert loop.ear.intents == {"start_listening"}
    said = len(table.lines)
    say(loop, "skip")
    assert table.lines[said:] == []
    say(loop, "start listening")
    assert table.lines[-1] == "BSAT1: Listening again."


@dataclass
class SlowTable(Table):
    """Speaking takes a moment, so that the state can be seen."""

    seconds: float = 0.3

    def announce(self, outputs: Sequence[Output]) -> None:
        if not outputs:
            return
        self.speaking.begin()
        time.sleep(self.seconds)
        self.lines += [output.line() for output in outputs]
        self.speaking.end()


@dataclass
class BrokenMic(FakeMic):
    """Works until ``broken`` is set; then it is gone until it is cleared (and opened again)."""

    broken: threading.Event = field(default_factory=threading.Event)
    opened: bool = True

    def alive(self) -> bool:
        return self.opened and not self.broken.is_set()

    def open(self) -> None:
        if self.broken.is_set():
            raise MicrophoneError("no microphone found.")
        self.opened = True

    def close(self) -> None:
        self.opened = False


def test_the_state_light_follows_listening_speaking_paused_and_problems(tmp_path: Path) -> None:
    table = SlowTable()
    games = Games(lambda name: {}, tmp_path, 5)
    box = Box(table, games)  # type: ignore[arg-type]
    box.show_menu(ask=False)
    mic = BrokenMic()
    states: list[str] = []
    loop = LiveLoop(box, typed_ear(box.sentences, box.allowed_intents()), mic, table.speaking, None,
                    LiveSettings(mute_tail_seconds=0.0, retry_seconds=0.05), log=lambda message: None,
                    on_state=states.append)  # type: ignore[arg-type]
    stop = threading.Event()
    runner = threading.Thread(target=loop.run, args=(stop,))
    runner.start()

    def wait_for(state: str) -> None:
        deadline = time.monotonic() + 5
        while (not states or states[-1] != state) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert states and states[-1] == state, states

    try:
        wait_for("listening")
        mic.blocks.put(b"stop listening\n")
        wait_for("speaking")
        wait_for("paused")
        time.sleep(0.2)  # what the microphone hears in the block that ends with speech is dropped
        mic.blocks.put(b"start listening\n")
        wait_for("listening")
        mic.broken.set()
        wait_for("problem")  # "I cannot hear you" is said meanwhile: a problem still
        mic.broken.clear()
        wait_for("listening")
        table.speaking.problem = "the speaker is not working"
        wait_for("problem")
        table.speaking.problem = ""
        wait_for("listening")
    finally:
        stop.set()
        runner.join(timeout=5)
    assert set(states) == set(STATES)
    assert all(a != b for a, b in zip(states, states[1:], strict=False))  # each told once per change
    assert states[:5] == ["listening", "speaking", "paused", "speaking", "listening"]


class FailingRecognizer(TextRecognizer):
    """Fails on a block that says "crash" (as a recognizer whose model broke would)."""

    def accept(self, block: bytes) -> Partial | Transcript | None:
        if b"crash" in block:
            raise RuntimeError("decoder state is corrupt")
        return super().accept(block)


def test_a_recognizer_that_fails_is_a_problem_and_play_goes_on(tmp_path: Path) -> None:
    table = Table()
    loop, box, _ = live_box(tmp_path, table)
    logged: list[str] = []
    loop.log = logged.append
    loop.ear = Ear(FailingRecognizer(), box.sentences, box.allowed_intents())
    assert loop.state() == "listening"
    say(loop, "crash")
    assert loop.state() == "problem"
    assert logged == ["recognizer failed (RuntimeError: decoder state is corrupt); what was being said is dropped"]
    say(loop, "the omega virus")
    assert loop.state() == "listening" and table.lines[-1] == "BSAT1: Enter skill."


def test_what_game_time_changes_changes_what_the_ear_listens_for(tmp_path: Path) -> None:
    """An idle pause (and so a game over, and the menu after it) comes with time, not words:
    "resume" is listened for at once, not after the next thing said."""
    table = Table()
    loop, box, _ = live_box(tmp_path, table)
    box.games.idle = 30.0
    say(loop, "the omega virus")
    for words in ("skill zero", "code one two", "code two one", "skip", "skip"):
        say(loop, words)
    assert box.session is not None and box.session.game.clock_running()
    assert "resume" not in loop.ear.intents
    loop.tick(31.0)
    assert box.paused and table.lines[-1].startswith("BSAT1: Nobody has played for 30 seconds")
    assert "resume" in loop.ear.intents
    say(loop, "resume")
    assert not box.paused
