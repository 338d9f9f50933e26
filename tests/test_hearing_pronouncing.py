"""PocketSphinx's pronouncing dictionary looked up from Python (assistant/hearing/pronouncing.py):
every word's pronunciations as PocketSphinx's own dictionary gives them, and a recognizer whose
decoder holds only its grammars' words hears what one with all of CMUdict hears, partial words,
readings and doubts alike, on real speech."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.hearing import HearingSettings, open_ear
from assistant.hearing.audio import blocks
from assistant.hearing.events import Partial, Transcript
from assistant.hearing.pocketsphinx_engine import PocketSphinxRecognizer
from assistant.hearing.pronouncing import Pronouncing, PronouncingError
from assistant.sentences import SentenceSet
from tests.support.spoken import SPEAKERS, ClipMaker, add_noise

pytestmark = pytest.mark.model

PIPER, _, _, ESPEAK_US, _, _ = SPEAKERS
OMEGA = SentenceSet.load_game("assistant.games.omega_virus", undo=False)


def cmudict() -> Path:
    from pocketsphinx import get_model_path

    return Path(get_model_path()) / "en-us" / "cmudict-en-us.dict"


def test_every_word_is_pronounced_as_pocketsphinx_s_dictionary_says() -> None:
    from pocketsphinx import Decoder

    dictionary = Pronouncing(cmudict())
    decoder = Decoder(loglevel="FATAL", lm=None)  # all of CMUdict, as PocketSphinx loads it
    words = sorted({line.split(" ", 1)[0].split("(")[0] for line in cmudict().read_text().splitlines() if line})
    assert len(words) > 100_000
    for word in words:
        theirs = []
        for variant in [word] + [f"{word}({n})" for n in range(2, 20)]:
            phones = decoder.lookup_word(variant)
            if phones is None:
                break
            theirs.append(phones)
        assert dictionary.variants(word) == theirs, word
    assert dictionary.variants("read") == ["R EH D", "R IY D"]
    assert dictionary.variants("teleportation's-not-a-word") == [] and dictionary.variants("") == []


def test_an_unsorted_dictionary_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "unsorted.dict"
    path.write_text("zebra Z IY B R AH\napple AE P AH L\n")
    with pytest.raises(PronouncingError, match="not sorted"):
        Pronouncing(path)


class WholeDictionary:
    """A decoder with all of CMUdict in place of the recognizer's (adding a word it has is a no-op)."""

    def __init__(self, recognizer: PocketSphinxRecognizer) -> None:
        from pocketsphinx import Decoder

        t = recognizer.tuning
        self.decoder = Decoder(loglevel="FATAL", lm=None, beam=t.beam, pbeam=t.beam, wbeam=t.word_beam)

    def add_word(self, word: str, phones: str, update: bool = True) -> None:
        assert self.decoder.lookup_word(word) == phones

    def __getattr__(self, name: str) -> Any:
        return getattr(self.decoder, name)


def heard(recognizer: PocketSphinxRecognizer, clip: np.ndarray) -> tuple[list[str], Transcript]:
    partials = []
    for block in blocks(np.concatenate([clip, np.zeros(8000, dtype=np.int16)]), 0.1):
        event = recognizer.accept(block)
        if isinstance(event, Partial):
            partials.append(event.text)
        elif isinstance(event, Transcript):
            recognizer.reset()
            return partials, event
    return partials, recognizer.finish()


def test_a_decoder_with_only_the_grammars_words_hears_what_one_with_all_of_cmudict_hears(
        tmp_path: Path) -> None:
    maker = ClipMaker(tmp_path)
    said = ["explore one zero two", "shall we order some food", "teleport", "attack the red commando"]
    clips = [maker.say(text, PIPER) for text in said] + [maker.say(said[0], ESPEAK_US)]
    clips.append(add_noise(clips[0], "white", 10.0, seed=3))
    small, whole = (open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, ["explore", "teleport", "pass"])
                    for _ in range(2))
    assert isinstance(small.recognizer, PocketSphinxRecognizer) and isinstance(whole.recognizer, PocketSphinxRecognizer)
    whole.recognizer.decoder = WholeDictionary(whole.recognizer)  # type: ignore[assignment]
    whole.recognizer._searches.clear()
    for ear in (small, whole):
        ear.set_intents(["attack", "teleport", "pass", "explore"])
    assert small.recognizer.decoder.lookup_word("zebra") is None  # the small one holds the grammars' words only
    assert whole.recognizer.decoder.lookup_word("zebra") is not None
    for clip in clips:
        assert heard(small.recognizer, clip) == heard(whole.recognizer, clip)
