"""Hearing a clip with the first pass (PocketSphinx) alone, as the tests of its recognizer do."""

from __future__ import annotations

import numpy as np

from assistant.hearing.audio import blocks
from assistant.hearing.events import Transcript
from assistant.hearing.pocketsphinx_engine import PocketSphinxRecognizer


def reading(recognizer: PocketSphinxRecognizer, clip: np.ndarray, silence_s: float = 0.0) -> Transcript:
    """The recognizer's transcript at the end of ``clip``'s first utterance (``silence_s`` of
    silence after it), the recognizer then ready for the next."""
    audio = np.concatenate([np.asarray(clip, dtype=np.int16), np.zeros(int(16_000 * silence_s), dtype=np.int16)])
    for block in blocks(audio, 0.1):
        event = recognizer.accept(block)
        if isinstance(event, Transcript):
            recognizer.reset()
            return event
    return recognizer.finish()
