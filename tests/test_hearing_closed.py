"""Whisper tiny.en held to the grammar, for real: the allowed sentence it finds likeliest, on
the utterance's own short encoding, said by voices nobody tuned on; and the closed stage in the
real hybrid (PocketSphinx first, then Whisper) taking commands, refusing table talk and naming
a command the rules do not allow now."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import HearingSettings, open_ear
from assistant.hearing.events import Doubted, NotAllowedNow, NotRecognized, Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.whisper_engine import WhisperTranscriber, find_model
from tests.support.spoken import ClipMaker, Speaker

pytestmark = pytest.mark.model

OMEGA = game_module("omega-virus").sentences()
MOVE = ["explore", "pass", "teleport", "attack", "repeat", "time_left", "inventory", "help", "pause", "new_game"]
SHIELDS = ["shields", "help", "repeat", "time_left", "pause"]
#: Voices of neither the tuning nor the held-out benchmark set, so no threshold was chosen on them.
VOICES = (Speaker("espeak", "en-gb-scotland", 1.0, 50), Speaker("espeak", "en-us+f2", 1.1, 60),
          Speaker("espeak", "en-029", 1.0, 45))
COMMANDS = [
    ("explore room one two zero", Command("explore", {"d1": "1", "d2": "2", "d3": "0"})),
    ("attack the blue probe", Command("attack", {"target": "blue", "unit": "probe"})),
    ("pass", Command("pass", {})),
]


@pytest.fixture(scope="module")
def maker(tmp_path_factory: pytest.TempPathFactory) -> ClipMaker:
    return ClipMaker(tmp_path_factory.mktemp("clips"))


@pytest.fixture(scope="module")
def whisper() -> WhisperTranscriber:
    return WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))


def test_the_spoken_command_is_the_allowed_sentence_whisper_finds_likeliest(
        whisper: WhisperTranscriber, maker: ClipMaker) -> None:
    """Every allowed sentence Whisper writes is one of the moment's, likeliest first; the said
    command is the likeliest in at least 7 of these 9 clips (measured here: 9 of 9; the held-out
    benchmark's rate is in bench/results/bench_accuracy.md)."""
    graph = WordGraph(OMEGA, MOVE)
    right, misses = 0, []
    for voice in VOICES:
        for text, command in COMMANDS:
            assert whisper.listen(maker.say(text, voice).tobytes(), short=True)
            found = whisper.held_to(graph, beam=6)
            assert found and all(graph.accepts(list(f.words)) for f in found), found
            assert [f.logprob for f in found] == sorted((f.logprob for f in found), reverse=True)
            best = OMEGA.match(list(found[0].words), MOVE)
            right += best == command
            if best != command:
                misses.append((voice.label, text, found[:3]))
    assert right >= 7, misses


def test_loading_whisper_warms_it_up_and_leaves_it_having_heard_nothing() -> None:
    fresh = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))
    assert fresh.held_to(WordGraph(OMEGA, MOVE), beam=6) == []
    assert fresh.own_reading() == ("", float("-inf"))


@pytest.fixture(scope="module")
def hybrid():  # type: ignore[no-untyped-def]
    settings = HearingSettings(recognizer="hybrid")
    assert settings.closed  # the shipped default
    return open_ear(settings, OMEGA, MOVE, engine="hybrid", fallback=False)


def test_the_hybrid_takes_commands_with_the_closed_check_last(hybrid, maker: ClipMaker) -> None:  # type: ignore[no-untyped-def]
    heard, steps = [], []
    for voice in VOICES[:2]:
        for text, command in COMMANDS:
            heard.append((text, hybrid.hear(maker.say(text, voice)), command))
            steps.append([s.stage for s in hybrid.steps])
    right = [h for text, h, command in heard if isinstance(h, Transcript) and h.command == command]
    # a wrong command is never acted on: taken with doubt, it is asked about ("Pause?" for a
    # "pass" Whisper's free text wrote "Pause.", the closed check hearing "pass")
    wrong = [(text, h) for text, h, command in heard
             if isinstance(h, Transcript) and not isinstance(h, Doubted) and h.command is not None
             and h.command != command]
    assert len(right) >= 4 and not wrong, heard
    # the last word: wherever Whisper's stages had their say, the closed check had the last
    assert all(stages[-1] == "closed" for stages in steps if len(stages) > 1), steps
    assert sum(len(stages) > 1 for stages in steps) >= 4, steps


@pytest.mark.parametrize("line", ["I would love another slice of pizza", "who took my red card",
                                  "keep going, you're nearly there"])
def test_the_hybrid_takes_no_table_talk(hybrid, maker: ClipMaker, line: str) -> None:  # type: ignore[no-untyped-def]
    for voice in VOICES[:2]:
        heard = hybrid.hear(maker.say(line, voice))
        assert isinstance(heard, NotRecognized), (voice.label, heard)


def test_a_command_the_moment_does_not_allow_is_named_not_taken(maker: ClipMaker) -> None:
    """Said in the shields moment, a move is not taken; said clearly enough, it is named, so the
    game can say why it is not allowed now (measured here: 3 of 4 in these two voices; the
    Caribbean voice's "explore" is read "It's not room one to zero." and is not named)."""
    ear = open_ear(HearingSettings(recognizer="hybrid"), OMEGA, SHIELDS, engine="hybrid", fallback=False)
    heard = [ear.hear(maker.say(text, voice)) for voice in VOICES[1:]
             for text in ("explore room one two zero", "attack the red commando")]
    assert not any(isinstance(h, Transcript) for h in heard), heard
    named = [h for h in heard if isinstance(h, NotAllowedNow) and h.command is not None
             and h.command.intent in ("explore", "attack")]
    assert len(named) >= 3, heard


def test_an_early_answer_waits_unless_whisper_holds_the_audio_so_far_to_the_same_command(
        hybrid, maker: ClipMaker) -> None:  # type: ignore[no-untyped-def]
    """Answering early (before the end of speech) acts on the first pass's words so far; in the
    hybrid, Whisper held to the grammar must find the same command in the audio so far, or the
    answer waits for the end of speech (where the closed stage decides)."""
    import numpy as np

    from assistant.hearing.audio import blocks

    said = maker.say("explore room one two zero", VOICES[1])
    for block in blocks(np.asarray(said, dtype=np.int16), 0.1):
        hybrid._keep(block)  # the audio so far, as feeding it gives the second opinion
    def partial(text: str) -> Partial:  # as the Ear's feed gives it
        return Partial(text, hybrid.sentences.match(hybrid.sentences.words(text), hybrid.graph.intents))

    try:
        assert hybrid.doubt(partial("explore room one two zero")) == ""
        # what the search read of the audio so far is let go: the early answer's voice comes next
        assert hybrid.second.transcriber._reader is None
        assert "Whisper held to the grammar hears" in hybrid.doubt(partial("attack the red commando"))
        assert hybrid.doubt(partial("explore room one two")) == "not a command"
    finally:
        hybrid.reset()
