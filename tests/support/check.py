"""Does a voice still say its words? A PocketSphinx ear with a grammar of the expected phrases.

Used by the tests and ``bench/bench_voice.py`` (not by the product) to check that the
character effects keep speech intelligible: the bundled US-English model, restricted to a
closed set of phrases (as the game's own recognizer is), must pick the phrase that was spoken.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from assistant.voice.effects import Audio, resample_rate, to_int16
from assistant.voice.text import speakable


def spoken_words(text: str) -> list[str]:
    """The words a listener hears for ``text`` (after the voice's own text rules)."""
    return re.sub(r"[^a-z' ]+", " ", speakable(text).lower()).split()


def phrase_grammar(phrases: Iterable[str], name: str = "phrases") -> str:
    """A JSGF grammar accepting exactly the given phrases (as spoken words)."""
    options = sorted({" ".join(spoken_words(p)) for p in phrases if spoken_words(p)})
    body = " | ".join(f"( {o} )" for o in options)
    return f"#JSGF V1.0;\ngrammar {name};\npublic <phrase> = {body};\n"


def grammar_words(jsgf: str) -> set[str]:
    """The words a JSGF grammar uses (rule names, header and operators left out)."""
    rules = [line.split("=", 1)[1] for line in jsgf.splitlines() if "=" in line]
    return {w for w in re.sub(r"<[^>]*>|[()\[\]|;*+]", " ", " ".join(rules)).split()}


class PhraseEar:
    """PocketSphinx with a JSGF grammar; ``hear`` returns the phrase it recognized ("" if none)."""

    def __init__(self, jsgf: str) -> None:
        import pocketsphinx

        model = pocketsphinx.get_model_path()
        self.decoder = pocketsphinx.Decoder(
            hmm=os.path.join(model, "en-us", "en-us"),
            dict=os.path.join(model, "en-us", "cmudict-en-us.dict"),
            lm=None, loglevel="FATAL")
        missing = sorted(w for w in grammar_words(jsgf) if self.decoder.lookup_word(w) is None)
        if missing:
            raise ValueError(f"words missing from the PocketSphinx dictionary: {', '.join(missing)}")
        self.decoder.add_jsgf_string("grammar", jsgf)
        self.decoder.activate_search("grammar")

    @classmethod
    def for_phrases(cls, phrases: Sequence[str]) -> PhraseEar:
        return cls(phrase_grammar(phrases))

    def hear_pcm(self, samples: npt.NDArray[np.int16]) -> str:
        """Recognize 16 kHz mono 16-bit audio."""
        self.decoder.start_utt()
        self.decoder.process_raw(np.ascontiguousarray(samples, dtype="<i2").tobytes(), full_utt=True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        return hyp.hypstr if hyp is not None else ""

    def hear(self, audio: Audio, rate: int) -> str:
        """Recognize audio at any rate; a little silence around it, as a microphone would have."""
        silence = np.zeros(int(0.3 * rate), np.float32)
        return self.hear_pcm(to_int16(resample_rate(np.concatenate([silence, audio, silence]), rate, 16000)))
