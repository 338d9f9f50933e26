"""The phone check's decoder through PocketSphinx's C API (assistant/hearing/phone_loop.py), on
real Piper speech: the same phones as PocketSphinx's own Python binding gives, the decode the
end of speech starts is the one the check takes (not done twice), and where the C API cannot
be had, the binding decodes and the check works as before."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

from assistant.hearing import HearingSettings, open_ear, pocketsphinx_engine
from assistant.hearing.audio import blocks
from assistant.hearing.events import Transcript
from assistant.hearing.phone_loop import NOT_SPEECH, PhoneLoop, PhoneLoopError
from assistant.hearing.pocketsphinx_engine import PocketSphinxRecognizer
from assistant.sentences import SentenceSet
from tests.support.spoken import SPEAKERS, ClipMaker, add_noise

pytestmark = pytest.mark.model

PIPER, _, _, ESPEAK_US, _, _ = SPEAKERS
OMEGA = SentenceSet.load_game("assistant.games.omega_virus", undo=False)
SAID = ["teleport", "explore one zero zero", "shall we order some food", "attack the red commando"]


@pytest.fixture(scope="module")
def maker(tmp_path_factory: pytest.TempPathFactory) -> ClipMaker:
    return ClipMaker(tmp_path_factory.getbasetemp() / "phone-loop-clips")


@pytest.fixture(scope="module")
def clips(maker: ClipMaker) -> list[bytes]:
    said = [maker.say(text, PIPER) for text in SAID] + [maker.say(SAID[1], ESPEAK_US)]
    noisy = add_noise(said[0], "white", 10.0, seed=3)
    return [np.asarray(clip, dtype=np.int16).tobytes() for clip in [*said, noisy]]


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


def test_the_c_api_gives_the_binding_s_phones(clips: list[bytes]) -> None:
    tuning = pocketsphinx_engine.PocketSphinxTuning()
    loop = PhoneLoop(tuning.beam, tuning.word_beam)
    for audio in clips:
        phones = loop.phones(audio)
        assert len(phones) >= 3 and phones == binding_phones(audio)


def test_a_decode_started_is_the_one_taken_and_another_audio_is_decoded_at_once(clips: list[bytes]) -> None:
    tuning = pocketsphinx_engine.PocketSphinxTuning()
    loop = PhoneLoop(tuning.beam, tuning.word_beam)
    expected = [loop.phones(audio) for audio in clips[:2]]
    decodes = decoding_threads(loop)
    loop.start(clips[0])
    assert loop.heard(clips[1]) == expected[1]  # not the started utterance: decoded now
    assert loop.heard(clips[0]) == expected[0] and len(decodes) == 2  # the started one, not again
    assert loop.heard(clips[0]) == expected[0] and len(decodes) == 3  # taken once: asked again, decoded again


def test_the_decode_runs_on_its_own_thread_while_python_goes_on(clips: list[bytes]) -> None:
    """The worker decodes while this thread holds no lock of the loop's: ``start`` returns
    before the decode ends, and the decode ran on another thread."""
    tuning = pocketsphinx_engine.PocketSphinxTuning()
    loop = PhoneLoop(tuning.beam, tuning.word_beam)
    expected = loop.phones(clips[1])
    seen = decoding_threads(loop)
    loop.start(clips[1])
    assert loop.heard(clips[1]) == expected
    assert seen and seen[0] != threading.get_ident()


def decoding_threads(loop: PhoneLoop) -> list[int]:
    """The threads ``loop`` decodes on from now on, as it decodes."""
    seen: list[int] = []
    decode = loop.phones

    def phones(audio: bytes) -> list[str]:
        seen.append(threading.get_ident())
        return decode(audio)

    loop.phones = phones  # type: ignore[method-assign]
    return seen


def hear(recognizer: PocketSphinxRecognizer, clip: np.ndarray) -> Transcript:
    audio = np.concatenate([np.asarray(clip, dtype=np.int16), np.zeros(8000, dtype=np.int16)])
    for block in blocks(audio, 0.1):
        event = recognizer.accept(block)
        if isinstance(event, Transcript):
            return event
    return recognizer.finish()


def test_the_recognizer_s_phone_check_takes_the_decode_the_end_of_speech_started(maker: ClipMaker) -> None:
    ear = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, ["teleport", "explore", "pass"])
    recognizer = ear.recognizer
    assert isinstance(recognizer, PocketSphinxRecognizer)
    loop = recognizer._phone_loop
    assert loop is not None and recognizer.phone_loop_problem == ""
    threads = decoding_threads(loop)
    heard = hear(recognizer, maker.say("teleport", PIPER))
    assert heard.text == "teleport" and not heard.doubt
    # started at the end of speech on the worker, taken by the check: decoded once, not here
    assert len(threads) == 1 and threads[0] != threading.get_ident()
    recognizer.tuning.phones_ahead = False
    heard = hear(recognizer, maker.say("teleport", PIPER))
    assert heard.text == "teleport" and len(threads) == 2 and threads[-1] == threading.get_ident()


def test_without_the_c_api_the_binding_decodes_and_the_check_still_doubts_talk(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def unreachable(beam: float, word_beam: float) -> PhoneLoop:
        raise PhoneLoopError("PocketSphinx's C API is not reachable: a test")

    monkeypatch.setattr(pocketsphinx_engine, "PhoneLoop", unreachable)
    recognizer = PocketSphinxRecognizer()
    assert recognizer._phone_loop is None and "a test" in recognizer.phone_loop_problem
    assert "Python binding" in caplog.text and "a test" in caplog.text  # said in the log, once
    teleport = (recognizer.decoder.lookup_word("teleport") or "").split()
    limit = recognizer.tuning.phone_check
    talk = np.asarray(maker.say("shall we order some food", PIPER), dtype=np.int16).tobytes()
    assert "did not sound like 'teleport'" in recognizer._doubt(talk, "teleport", teleport, limit)
    said = np.asarray(maker.say("teleport", PIPER), dtype=np.int16).tobytes()
    assert recognizer._doubt(said, "teleport", teleport, limit) == ""
