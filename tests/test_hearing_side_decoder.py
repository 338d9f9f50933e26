"""The end of speech's decodes through PocketSphinx's C API (assistant/hearing/side_decoder.py), on
real Piper and espeak speech: the same phones and the same readings (words, probability, doubt)
as PocketSphinx's own Python binding gives; the reading the end of speech starts runs on the
side decoder's thread and is the one a stage takes (not read twice); and where the C API cannot
be had, the binding reads and the phone check works as before."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

from assistant.hearing import HearingSettings, open_ear, pocketsphinx_engine
from assistant.hearing.events import Deferred, Transcript
from assistant.hearing.pocketsphinx_engine import PocketSphinxRecognizer
from assistant.hearing.side_decoder import NOT_SPEECH, SideDecoder, SideDecoderError
from assistant.sentences import SentenceSet
from tests.support.first_pass import reading
from tests.support.spoken import SPEAKERS, ClipMaker, add_noise

pytestmark = pytest.mark.model

PIPER, _, _, ESPEAK_US, _, _ = SPEAKERS
OMEGA = SentenceSet.load_game("assistant.games.omega_virus", undo=False)
MOVES = ["teleport", "explore", "pass", "attack", "shields"]
SAID = ["teleport", "explore one zero zero", "shall we order some food", "attack the red commando",
        "shields zero and two"]


@pytest.fixture(scope="module")
def maker(tmp_path_factory: pytest.TempPathFactory) -> ClipMaker:
    return ClipMaker(tmp_path_factory.getbasetemp() / "side-decoder-clips")


@pytest.fixture(scope="module")
def clips(maker: ClipMaker) -> list[np.ndarray]:
    said = [maker.say(text, PIPER) for text in SAID] + [maker.say(text, ESPEAK_US) for text in SAID[1::2]]
    return said + [add_noise(clip, "white", 10.0, seed=3) for clip in said[:4]]


def binding_phones(audio: bytes) -> list[str]:
    """The phones as PocketSphinx's Python binding decodes them, with the recognizer's settings."""
    from pocketsphinx import Decoder, get_model_path

    tuning = pocketsphinx_engine.PocketSphinxTuning()
    decoder = Decoder(loglevel="FATAL", lm=None, allphone=str(Path(get_model_path()) / "en-us" / "en-us-phone.lm.bin"),
                      lw=2.0, dict=os.devnull, beam=tuning.beam, pbeam=tuning.beam, wbeam=tuning.word_beam)
    decoder.reinit_feat()
    decoder.start_utt()
    decoder.process_raw(audio, full_utt=True)
    decoder.end_utt()
    return [s.word for s in decoder.seg() or [] if s.word not in NOT_SPEECH]


def test_the_c_api_gives_the_binding_s_phones(clips: list[np.ndarray]) -> None:
    tuning = pocketsphinx_engine.PocketSphinxTuning()
    side = SideDecoder(tuning.beam, tuning.word_beam)
    for clip in clips:
        audio = clip.tobytes()
        phones = side.phones(audio)
        assert len(phones) >= 3 and phones == binding_phones(audio)


def without_c_api(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable(beam: float, word_beam: float) -> SideDecoder:
        raise SideDecoderError("PocketSphinx's C API is not reachable: a test")

    monkeypatch.setattr(pocketsphinx_engine, "SideDecoder", unreachable)


def test_the_side_decoder_reads_what_the_binding_reads(clips: list[np.ndarray],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The same words, probability and doubt, on commands, table talk and noise, in two moments
    (two grammars, the first searched again after the second)."""
    c_api = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, MOVES)
    without_c_api(monkeypatch)
    binding = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, MOVES)
    assert isinstance(c_api.recognizer, PocketSphinxRecognizer) and c_api.recognizer._side is not None
    assert isinstance(binding.recognizer, PocketSphinxRecognizer) and binding.recognizer._side is None
    doubted = commands = 0
    for intents in (MOVES, ["skill", "repeat", "pass"], MOVES):
        for ear in (c_api, binding):
            ear.set_intents(intents)
        for clip in clips:
            mine, theirs = reading(c_api.recognizer, clip, 0.5), reading(binding.recognizer, clip, 0.5)
            assert mine == theirs and mine.confidence == theirs.confidence
            doubted += bool(mine.doubt)
            commands += OMEGA.match(mine.text) is not None
    assert commands >= 10 and doubted >= 1  # the readings compared found commands, and the check doubted some


def recorded(side: SideDecoder, method: str) -> list[int]:
    """The threads ``side``'s ``method`` runs on from now on."""
    threads: list[int] = []
    call = getattr(side, method)

    def recording(*args: object) -> object:
        threads.append(threading.get_ident())
        return call(*args)

    setattr(side, method, recording)
    return threads


def with_cores(monkeypatch: pytest.MonkeyPatch, cores: int) -> None:
    """The machine taken to have ``cores`` cores (the recognizer decides whether the phone check
    decodes on a thread of its own by them)."""
    monkeypatch.setattr(pocketsphinx_engine.os, "cpu_count", lambda: cores)


def as_in_the_hybrid(monkeypatch: pytest.MonkeyPatch, cores: int) -> PocketSphinxRecognizer:
    """The first pass of an ear for a move, on a machine taken to have ``cores`` cores, its
    reading put off as the hybrid has it."""
    with_cores(monkeypatch, cores)
    recognizer = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, MOVES).recognizer
    assert isinstance(recognizer, PocketSphinxRecognizer)
    recognizer.defer_reading = True
    return recognizer


def a_command_put_off(recognizer: PocketSphinxRecognizer, maker: ClipMaker) -> tuple[Deferred, Transcript]:
    """A command said, its reading put off, and the reading settled: heard, not doubted."""
    put_off = reading(recognizer, maker.say("explore one zero zero", PIPER), 0.5)
    assert isinstance(put_off, Deferred)
    settled = put_off.settle()
    assert OMEGA.match(settled.text) is not None and not settled.doubt
    return put_off, settled


def test_a_reading_started_at_the_end_of_speech_is_read_on_the_side_threads_once(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    """On four cores: the one-piece decode on the side decoder's thread, the phone check's on the
    other's, each once; the reading taken again is the same; with ``read_ahead`` off, both are
    decoded when the reading is asked for, on the asking thread."""
    recognizer = as_in_the_hybrid(monkeypatch, 4)
    assert recognizer._side is not None and recognizer._phone_side is not None
    reads, phones = recorded(recognizer._side, "read"), recorded(recognizer._phone_side, "phones")
    put_off, settled = a_command_put_off(recognizer, maker)
    assert put_off.settle() == settled  # taken again: the same reading, not read again
    here = threading.get_ident()
    assert len(reads) == len(phones) == 1 and here not in reads + phones and reads[0] != phones[0]
    recognizer.tuning.read_ahead = False
    put_off = reading(recognizer, maker.say("explore one zero zero", PIPER), 0.5)
    assert isinstance(put_off, Deferred) and len(reads) == len(phones) == 1  # not read until asked
    assert put_off.settle() == settled and reads[-1] == phones[-1] == here


def test_on_two_cores_the_phone_check_follows_the_one_piece_decode_on_its_thread(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three threads at once would slow Whisper's answer on two cores: no second side decoder,
    and the reading's two decodes run one after the other on the side decoder's thread."""
    recognizer = as_in_the_hybrid(monkeypatch, 2)
    assert recognizer._side is not None and recognizer._phone_side is None
    reads, phones = recorded(recognizer._side, "read"), recorded(recognizer._side, "phones")
    a_command_put_off(recognizer, maker)
    assert reads == phones and len(reads) == 1 and reads[0] != threading.get_ident()


def test_the_phone_check_is_decoded_beside_the_reading_without_whisper_too(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pass alone reads at the end of speech, in place; on four cores its phone check's
    decode runs beside it on the other side decoder, and talk forced onto a command is still
    doubted."""
    with_cores(monkeypatch, 4)
    ear = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, MOVES)
    recognizer = ear.recognizer
    assert isinstance(recognizer, PocketSphinxRecognizer) and recognizer._phone_side is not None
    phones = recorded(recognizer._phone_side, "phones")
    heard = reading(recognizer, maker.say("teleport", PIPER), 0.5)
    assert heard.text == "teleport" and not heard.doubt
    assert len(phones) == 1 and phones[0] != threading.get_ident()
    teleport = (recognizer.pronunciation("teleport") or "").split()
    talk = np.asarray(maker.say("shall we order some food", PIPER), dtype=np.int16).tobytes()
    limit = recognizer.tuning.phone_check
    assert "did not sound like 'teleport'" in recognizer._doubt(talk, "teleport", teleport, limit)


def test_work_started_and_not_begun_is_let_go_when_the_next_utterance_ends(clips: list[np.ndarray]) -> None:
    tuning = pocketsphinx_engine.PocketSphinxTuning()
    side = SideDecoder(tuning.beam, tuning.word_beam)
    gate = threading.Event()
    first = side.start(gate.wait)  # the worker is busy
    second = side.start(lambda: side.phones(clips[0].tobytes()))
    third = side.start(lambda: side.phones(clips[1].tobytes()))
    gate.set()
    assert first.result() is True and second.cancelled()
    assert third.result() == binding_phones(clips[1].tobytes())


def test_without_the_c_api_the_binding_reads_and_the_check_still_doubts_talk(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    without_c_api(monkeypatch)
    recognizer = PocketSphinxRecognizer()
    assert recognizer._side is None and "a test" in recognizer.side_problem
    assert "Python binding" in caplog.text and "a test" in caplog.text  # said in the log, once
    teleport = (recognizer.pronunciation("teleport") or "").split()
    limit = recognizer.tuning.phone_check
    talk = np.asarray(maker.say("shall we order some food", PIPER), dtype=np.int16).tobytes()
    assert "did not sound like 'teleport'" in recognizer._doubt(talk, "teleport", teleport, limit)
    said = np.asarray(maker.say("teleport", PIPER), dtype=np.int16).tobytes()
    assert recognizer._doubt(said, "teleport", teleport, limit) == ""
    ear = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, MOVES)
    assert isinstance(ear.recognizer, PocketSphinxRecognizer) and ear.recognizer._side is None
    ear.recognizer.defer_reading = True
    put_off = reading(ear.recognizer, maker.say("teleport", PIPER), 0.5)
    assert isinstance(put_off, Deferred) and put_off.settle().text == "teleport"
