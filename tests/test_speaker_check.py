"""The speaker check of the live tests (tests/speaker_check.py), on lines the real Piper voice
renders: a recording of two lines, quieter and with a faint hiss (53 dB under them), holds
them in the order said; not in the other order, and not a line one word away."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from assistant.config import Config
from assistant.voice.voices import Voices
from tests.speaker_check import LIMITS, RATE, find_said, reference


def test_lines_are_found_in_the_order_said_and_a_line_one_word_away_is_not(tmp_path: Path) -> None:
    voices = Voices.from_config(Config.from_text(f"voice: {{cache_dir: '{tmp_path}'}}\n"), load="lazy")
    first = reference(voices, "BSAT1", "Yellow, enter secret code.")
    second = reference(voices, "VIRUS", "Code 2 1.")
    gap = np.zeros(RATE // 2, np.float32)
    recording = np.concatenate([gap, 0.5 * first, gap, gap, 0.5 * second, gap])
    recording += np.random.default_rng(1).normal(0, 1e-4, len(recording)).astype(np.float32)
    found = find_said([first, second], recording, *LIMITS)
    assert all(f.end >= 0 and f.mean < 0.05 for f in found), found
    assert found[0].end < found[1].end
    assert [f.end >= 0 for f in find_said([second, first], recording, *LIMITS)] == [True, False]
    for speaker, text in [("BSAT1", "Purple, enter secret code."), ("VIRUS", "Code 1 2.")]:
        assert find_said([reference(voices, speaker, text)], recording, *LIMITS)[0].end < 0, text
    assert [f.end for f in find_said([first], np.zeros(RATE, np.float32), *LIMITS)] == [-1]  # a silent speaker
