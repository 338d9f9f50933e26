"""Push-to-talk (``listen: push-to-talk``): only what is said after a talk press is heard.

The loop's logic with typed words for audio (the text recognizer) and a fake table that
records what the assistant says; then the real path: `assistant play omega-virus` on the
PulseAudio virtual microphone and speaker, with a FIFO keypad and Piper-voiced clips.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from assistant.config import Config
from assistant.engine import Output
from assistant.hearing import HearingSettings
from assistant.hearing.recognizer import Ear
from assistant.hearing.text_engine import TextRecognizer
from assistant.live.keypad import TALK
from assistant.live.loop import TALK_CUE, LiveLoop, LiveSettings
from assistant.live.microphone import Block
from assistant.live.run import hear_pushed_to_talk, live_settings
from assistant.session import Session
from assistant.voice.announcer import SpeakingSignal
from tests.audio_env import ensure_audio
from tests.live_helpers import FakeMic, live_assistant, piper_clip, said_and_passed, wait_quiet

SKILL_ZERO = "BSAT1: Red, enter secret code."


@dataclass
class Table:
    """The announcer: what the assistant says, with the speaking signal set meanwhile."""

    speaking: SpeakingSignal = field(default_factory=lambda: SpeakingSignal(ended_at=-100.0))
    lines: list[str] = field(default_factory=list)

    def announce(self, outputs: Sequence[Output]) -> None:
        if not outputs:
            return  # as the spoken announcer: nothing said, no speech
        self.speaking.begin()
        self.lines += [output.line() for output in outputs]
        self.speaking.end()


@dataclass
class FakeKeypad:
    on_press: Callable[[str], None] | None = None

    def start(self, on_press: Callable[[str], None]) -> None:
        self.on_press = on_press

    def stop(self) -> None: ...


def table_loop(listen: str = "push-to-talk", **settings: float) -> tuple[LiveLoop, Table]:
    """A new Omega Virus game ("Enter skill." said) heard through typed words."""
    table = Table()
    session = Session.new("omega-virus", 1, {}, table, None)
    session.start()
    ear = Ear(TextRecognizer(), session.sentences, session.allowed_intents())
    options = {"mute_tail_seconds": 0.0, **settings}
    loop = LiveLoop(session, ear, FakeMic(), table.speaking, FakeKeypad(),
                    LiveSettings(listen=listen, **options), log=lambda message: None)  # type: ignore[arg-type]
    return loop, table


def say(loop: LiveLoop, words: str) -> bool:
    """One block of "audio": typed words, a newline ending the utterance."""
    return loop._handle_block(Block(words.encode(), time.monotonic() + loop.settings.block_seconds))


def press(loop: LiveLoop, button: str) -> bool:
    loop._on_press(button)
    return loop._handle_presses()


def test_without_a_talk_press_nothing_said_is_heard() -> None:
    loop, table = table_loop()
    said = len(table.lines)
    assert not say(loop, "skill zero\n")
    assert table.lines[said:] == []
    assert not loop.listening()


def test_a_talk_press_plays_the_cue_and_hears_one_utterance() -> None:
    loop, table = table_loop()
    said = len(table.lines)
    assert press(loop, TALK)
    assert table.lines[said:] == [TALK_CUE.line()]
    assert loop.listening()
    assert say(loop, "skill zero\n")
    assert table.lines[-1] == SKILL_ZERO
    assert not loop.listening()  # one utterance per press


def test_table_talk_after_a_press_uses_up_the_press() -> None:
    loop, table = table_loop()
    press(loop, TALK)
    assert not say(loop, "who has the dice\n")
    assert not loop.listening()
    said = len(table.lines)
    assert not say(loop, "skill zero\n")
    assert table.lines[said:] == []
    press(loop, TALK)
    assert say(loop, "skill zero\n")
    assert table.lines[-1] == SKILL_ZERO


def test_silence_after_a_press_keeps_listening() -> None:
    loop, table = table_loop()
    press(loop, TALK)
    for _ in range(3):
        assert not say(loop, "\n")  # an utterance with no words (a click, a breath)
    assert loop.listening()
    assert say(loop, "skill zero\n")


def test_listening_ends_after_talk_seconds() -> None:
    loop, table = table_loop(talk_seconds=0.2)
    press(loop, TALK)
    time.sleep(0.4)
    said = len(table.lines)
    assert not say(loop, "skill zero\n")
    assert table.lines[said:] == []
    assert not loop.listening()


def test_words_under_way_when_time_is_up_are_taken_as_said() -> None:
    loop, table = table_loop(talk_seconds=0.2, answer_early=False)
    press(loop, TALK)
    assert not say(loop, "skill zero")  # no end of the utterance yet
    time.sleep(0.4)
    assert say(loop, "")  # the next block is past the limit: the utterance ends there
    assert table.lines[-1] == SKILL_ZERO


def test_a_press_while_the_assistant_speaks_does_not_open_listening() -> None:
    loop, table = table_loop(mute_tail_seconds=0.4)
    table.speaking.begin()
    loop._on_press(TALK)
    table.speaking.end()
    said = len(table.lines)
    assert not loop._handle_presses()
    assert table.lines[said:] == []  # no cue
    assert not loop.listening()
    time.sleep(0.5)
    assert not say(loop, "skill zero\n")
    assert table.lines[said:] == []


def test_the_assistant_speaking_ends_the_turn() -> None:
    loop, table = table_loop()
    press(loop, TALK)
    loop.session.say("Ten minutes left.")  # a timed announcement while a player holds the floor
    assert not loop.listening()
    said = len(table.lines)
    assert not say(loop, "skill zero\n")
    assert table.lines[said:] == []


def test_a_second_press_while_listening_does_not_cut_the_utterance() -> None:
    loop, table = table_loop(answer_early=False)
    press(loop, TALK)
    say(loop, "skill")
    said = len(table.lines)
    assert not press(loop, TALK)
    assert table.lines[said:] == []  # no second cue, nothing reset
    assert say(loop, " zero\n")
    assert table.lines[-1] == SKILL_ZERO


@pytest.mark.parametrize("listen", ["always", "push-to-talk"])
def test_the_talk_key_is_never_a_game_button(listen: str, monkeypatch: pytest.MonkeyPatch) -> None:
    loop, table = table_loop(listen)
    pressed: list[Sequence[str]] = []
    monkeypatch.setattr(loop.session, "press", pressed.append)
    press(loop, TALK)
    press(loop, "1")
    assert pressed == [["1"]]


def test_always_listening_ignores_the_talk_key() -> None:
    loop, table = table_loop("always")
    said = len(table.lines)
    assert not press(loop, TALK)
    assert table.lines[said:] == []
    assert say(loop, "skill zero\n")
    assert table.lines[-1] == SKILL_ZERO


def test_the_running_loop_takes_the_talk_press_from_the_keypad() -> None:
    loop, table = table_loop()
    stop = threading.Event()
    runner = threading.Thread(target=loop.run, args=(stop,), daemon=True)
    runner.start()
    try:
        mic, keypad = loop.mic, loop.keypad
        assert isinstance(mic, FakeMic) and isinstance(keypad, FakeKeypad)
        deadline = time.monotonic() + 5
        while keypad.on_press is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert keypad.on_press is not None
        said_and_passed(mic, "skill zero\n")
        assert SKILL_ZERO not in table.lines
        keypad.on_press(TALK)
        while TALK_CUE.line() not in table.lines and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(2 * mic.block_seconds)  # a block that held some of the cue is dropped
        mic.blocks.put(b"skill zero\n")
        while SKILL_ZERO not in table.lines and time.monotonic() < deadline:
            time.sleep(0.01)
        assert table.lines[-2:] == [TALK_CUE.line(), SKILL_ZERO]
    finally:
        stop.set()
        runner.join(timeout=5)


def test_listen_mode_and_talk_time_from_config() -> None:
    config = Config.from_text("listen: push-to-talk\nlive:\n  talk_seconds: 8\n")
    settings = live_settings(config)
    assert settings.push_to_talk and settings.talk_seconds == 8.0
    assert config.problems == []
    config = Config.from_text("listen: sometimes\nlive:\n  talk_seconds: 0\n")
    settings = live_settings(config)
    assert settings.listen == "always" and settings.talk_seconds == LiveSettings().talk_seconds
    assert len(config.problems) == 2
    assert "config line 1: listen = 'sometimes' must be one of always, push-to-talk; using 'always'" \
        in config.problems[0]
    assert "live.talk_seconds" in config.problems[1]


CHATTER = "I think we should order pizza after this game, the pepperoni one"


@pytest.mark.audio
@pytest.mark.model
def test_push_to_talk_hands_free(tmp_path: Path) -> None:
    """Through the real devices: a command said without a talk press does nothing, table talk
    after a press does nothing, and the same command after a press is acted on."""
    ensure_audio()
    keypad = tmp_path / "keypad"
    config = "recognizer: pocketsphinx\nlisten: push-to-talk\n"
    clips = {text: piper_clip(text) for text in ("skill zero", CHATTER)}
    with live_assistant(tmp_path, "ptt", config, keypad, seed=1) as live:
        out, feeder, recorder = live.out, live.feeder, live.recorder
        mark = len(recorder.samples())
        out.wait_for("BSAT1: Enter skill.")
        out.wait_for("BSAT1: Press the talk key, then speak.")  # told how, once
        wait_quiet(recorder, mark)

        # (a) no press: the command is not even listened to; (c) a press, then table talk: the
        # press is used up, nothing happens. Neither prints anything: the line after (c)'s beep
        # is the beep of (b)'s press (checked at the end, heard in order; the pauses are a
        # player's, not a time window).
        before_a = len(out.lines)
        feeder.say(clips["skill zero"])
        time.sleep(len(clips["skill zero"]) / 16000 + 3)
        keypad.write_text("+")
        out.wait_for("SOUND: beep", start=before_a, timeout=10)
        time.sleep(0.3)
        feeder.say(clips[CHATTER])
        time.sleep(len(clips[CHATTER]) / 16000 + 3)

        # (b) a press, then the command: acted on (said again if misheard, as a player would)
        for attempt in range(3):
            before = len(out.lines)
            mark = len(recorder.samples())
            keypad.write_text(" ")  # the space bar is a talk key too
            out.wait_for("SOUND: beep", start=before, timeout=10)
            time.sleep(0.3)
            feeder.say(clips["skill zero"])
            try:
                out.wait_for("BSAT1: Red, enter secret code.", start=before, timeout=12)
                break
            except AssertionError:
                if attempt == 2:
                    raise
                wait_quiet(recorder, mark)
    assert out.lines[before_a:before_a + 2] == ["SOUND: beep", "SOUND: beep"], out.lines[before_a:]
    assert out.lines.count("BSAT1: Press the talk key, then speak.") == 1


def test_hearing_pushed_to_talk_neither_doubts_nor_vetoes_and_tries_whisper_last() -> None:
    hearing = HearingSettings()
    assert hearing.veto and hearing.phone_check > 0 and not hearing.as_sentences  # listening always
    hear_pushed_to_talk(hearing)
    assert not hearing.veto and hearing.phone_check == hearing.early_phone_check == 0.0
    assert hearing.as_sentences  # the last try took table talk; none reaches the ear now
