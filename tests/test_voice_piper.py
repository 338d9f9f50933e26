"""The real Piper voice through each character: still understood, clearly different, cached.

A PocketSphinx ear (the bundled US-English model) with a grammar of game-like phrases
must pick exactly the phrase each character said, digits and colours included. Piper's
synthesis is random (its noise scales), and now and then PocketSphinx drops the last short
word of a processed phrase (it returns its best partial path): one such truncation per
character is tolerated; a wrong word never is.
"""

from __future__ import annotations

import argparse
import io
import itertools
import sys
import time
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.config import Config
from assistant.engine import Game, Say
from assistant.games import GAMES, GameSpec
from assistant.phrases import every_game
from assistant.sentences import SentenceSet
from assistant.voice.announcer import SpokenAnnouncer
from assistant.voice.cache import read_wav
from assistant.voice.commands import say_main
from assistant.voice.playback import MemorySink
from assistant.voice.prepare import prepare_voice_cache
from assistant.voice.voices import Rendered, Voices
from tests.support.analysis import measure
from tests.support.check import PhraseEar, spoken_words

pytestmark = pytest.mark.model

DIGITS = ["0", "1", "2"]
COLOURS = ["Red", "Blue", "Green", "Yellow"]

#: Test phrases in the style of the Omega Virus (written as a game engine would print them).
#: They are test material, not quotes from the original unit.
GRAMMAR_PHRASES = (
    [f"Code {a} {b}." for a, b in itertools.product(DIGITS, DIGITS)]
    + [f"Explore room {a}{b}{c}." for a, b, c in itertools.product(DIGITS, DIGITS, DIGITS)]
    + [f"{c} player, enter your code." for c in COLOURS]
    + [f"{c} commando destroyed." for c in COLOURS]
    + [f"You have {n} minutes left." for n in range(1, 10)]
    + ["Shields are down.", "Shields are up.", "BSat1 systems failing.", "Teleport complete.",
       "The virus has reached the system core.", "Access card found.", "You cannot escape me."]
)
SPOKEN = ["Code 0 1.", "Explore room 102.", "Green player, enter your code.", "You have 5 minutes left.",
          "BSat1 systems failing.", "You cannot escape me.", "Yellow commando destroyed.", "Code 2 0."]
CHARACTERS = ["virus", "bsat1", "narrator"]


@pytest.fixture(scope="module")
def voices(tmp_path_factory: pytest.TempPathFactory) -> Voices:
    folder = tmp_path_factory.mktemp("voice-cache")
    return Voices.from_config(Config.from_text(f"voice: {{cache_dir: {folder}}}\n"), load="now")


@pytest.fixture(scope="module")
def ear() -> PhraseEar:
    return PhraseEar.for_phrases(GRAMMAR_PHRASES)


@pytest.fixture(scope="module")
def rendered(voices: Voices) -> dict[str, list[tuple[np.ndarray, int]]]:
    """Each test phrase in each character, as played (live glitch included, calm)."""
    out: dict[str, list[tuple[np.ndarray, int]]] = {}
    for character in CHARACTERS:
        glitch = voices.specs[character].glitch
        out[character] = []
        for phrase in SPOKEN:
            parts = [r for r in voices.utterance(character.upper(), phrase)]
            audio = np.concatenate([p.audio for p in parts])
            if glitch is not None:
                import random

                audio = glitch.apply_live(audio, parts[0].rate, 0.0, random.Random(1))
            out[character].append((audio, parts[0].rate))
    return out


@pytest.mark.parametrize("character", CHARACTERS)
def test_each_character_is_understood(character: str, rendered: dict[str, list[tuple[np.ndarray, int]]],
                                      ear: PhraseEar) -> None:
    heard = [ear.hear(audio, rate) for audio, rate in rendered[character]]
    expected = [" ".join(spoken_words(p)) for p in SPOKEN]
    misses = [(e, h) for e, h in zip(expected, heard, strict=True) if h != e]
    # Piper samples its speech (the characters' noise_scale), so no two runs sound quite the
    # same: one phrase of the eight may be lost or misheard by the recognizer, not two.
    assert len(misses) <= 1, f"more than one phrase misheard: {misses}"


@pytest.mark.parametrize("speaker", ["VIRUS", "BSAT1"])
def test_the_games_own_phrases_are_understood(speaker: str, voices: Voices) -> None:
    """Phrases the Command Center really says (a seeded sample of its fixed phrases), in the
    character that says them, picked out of all of them by a recognizer."""
    import random

    from assistant.config import Config as GameConfig
    from assistant.games import omega_virus

    said = sorted({p.text for p in omega_virus.fixed_phrases(omega_virus.settings_from_config(GameConfig()))
                   if p.speaker == speaker})
    try:
        PhraseEar.for_phrases(said)
        unknown: set[str] = set()
    except ValueError as error:  # a few words ("disruptor") are not in the recognizer's dictionary
        unknown = set(str(error).split(": ", 1)[1].split(", "))
    hearable = [p for p in said if not unknown & set(spoken_words(p))]
    assert len(hearable) > 0.7 * len(said)  # "teleported" and "disruptor" are the missing words
    ear = PhraseEar.for_phrases(hearable)
    sample = random.Random(3).sample(hearable, 8)
    heard = []
    for phrase in sample:
        parts = list(voices.utterance(speaker, phrase))
        heard.append(ear.hear(np.concatenate([p.audio for p in parts]), parts[0].rate))
    misses = [(p, h) for p, h in zip(sample, heard, strict=True) if h != " ".join(spoken_words(p))]
    assert len(misses) <= 1, misses  # one of eight may be misheard (Piper samples its speech)


def test_bsat1_still_understood_when_time_runs_out(voices: Voices, ear: PhraseEar) -> None:
    import random

    glitch = voices.specs["bsat1"].glitch
    assert glitch is not None
    rng = random.Random(7)
    heard = []
    for phrase in ["Code 1 2.", "Explore room 210.", "Blue player, enter your code."]:
        parts = list(voices.utterance("BSAT1", phrase))
        audio = glitch.apply_live(np.concatenate([p.audio for p in parts]), parts[0].rate, 1.0, rng)
        heard.append(ear.hear(audio, parts[0].rate))
    assert heard == ["code one two", "explore room two one zero", "blue player enter your code"]


def test_characters_differ_measurably(rendered: dict[str, list[tuple[np.ndarray, int]]]) -> None:
    measures = {c: [measure(a, r) for a, r in rendered[c]] for c in CHARACTERS}
    pitch = {c: float(np.median([m.median_pitch_hz for m in ms])) for c, ms in measures.items()}
    low = {c: float(np.median([m.low_share for m in ms])) for c, ms in measures.items()}
    # the Virus low, the station computer high: more than an octave apart
    assert pitch["bsat1"] > 2.0 * pitch["virus"], pitch
    assert pitch["virus"] < 0.85 * pitch["narrator"], pitch
    assert pitch["virus"] < 80, pitch
    # the Virus's weight sits low (its sub-octave growl), BSat1 is thin: almost nothing below 250 Hz
    assert low["bsat1"] < 0.01, low
    assert low["virus"] > 20 * low["bsat1"], low


def test_fixed_phrases_come_from_the_cache(voices: Voices) -> None:
    text = "Teleport complete. Shields are up."
    first = list(voices.utterance("VIRUS", text))
    again = list(voices.utterance("VIRUS", text))
    assert [r.cached for r in again] == [True, True]
    assert all(np.array_equal(a.samples, b.samples) for a, b in zip(first, again, strict=True))
    assert max(r.seconds_to_make for r in again) < 0.05
    assert voices.is_cached("VIRUS", text) and not voices.is_cached("BSAT1", text)


def test_a_sentence_asked_for_twice_at_once_is_made_once(voices: Voices, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first answer is often the phrase the background renderer is making: wait for it, not twice."""
    import threading

    made: list[str] = []
    real = voices.bank.render

    def counting(spec: object, sentence: str, foreground: bool = True) -> object:
        made.append(sentence)
        return real(spec, sentence, foreground)  # type: ignore[arg-type]

    monkeypatch.setattr(voices.bank, "render", counting)
    text = "Sector seven is sealed."
    results: list[list[Rendered]] = []
    workers = [threading.Thread(target=lambda fg=fg: results.append(list(voices.utterance("BSAT1", text, fg))))
               for fg in (False, True)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert made == [text] and len(results) == 2
    assert np.array_equal(results[0][0].samples, results[1][0].samples)


def test_cold_start_serves_cached_phrases_without_loading_the_model(voices: Voices) -> None:
    phrase = "Access card found."
    list(voices.utterance("NARRATOR", phrase))  # on disk now
    config = Config.from_text(f"voice: {{cache_dir: {voices.settings.cache_dir}}}\n")
    start = time.monotonic()
    cold = Voices.from_config(config, load="lazy")
    parts = list(cold.utterance("NARRATOR", phrase))
    elapsed = time.monotonic() - start
    assert [p.cached for p in parts] == [True]
    assert not cold.bank._voices, "a cached phrase must not need the Piper model"
    assert elapsed < 1.0


def phrases_only_spec(name: str, fixed_phrases: Callable[[Mapping[str, Any]], list[Say]]) -> GameSpec:
    """A game that is only its fixed phrases (it cannot be played: create fails)."""
    def create(seed: int, settings: Mapping[str, Any]) -> Game:
        raise NotImplementedError

    def sentences() -> SentenceSet:
        raise NotImplementedError

    return GameSpec(name, create, sentences, fixed_phrases)


def test_prepare_renders_each_game_once(voices: Voices, monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    game = types.ModuleType("voice_test_game")
    game.SPEC = phrases_only_spec("test-game", lambda settings: [  # type: ignore[attr-defined]
        Say("VIRUS", "You cannot escape me. Teleport complete."), Say("BSAT1", "Shields are down."),
        Say("VIRUS", "Teleport complete.")])
    monkeypatch.setitem(sys.modules, "voice_test_game", game)
    monkeypatch.setitem(GAMES, "test-game", "voice_test_game")
    monkeypatch.setitem(GAMES, "unwritten-game", "assistant.games.voice_test_not_written")
    monkeypatch.setattr("assistant.session.SESSION_PHRASES", ("Say again?",))  # the driver's own, too
    config = Config.from_text(f"voice: {{cache_dir: {tmp_path}}}\n")
    summary = prepare_voice_cache(config, every_game(config, ["test-game", "unwritten-game"]))
    assert "4 sentences for test-game (4 rendered now, 0 already cached)" in summary
    assert "Skipped: unwritten-game (No module named" in summary
    assert len(list(tmp_path.glob("*.wav"))) == 4
    bar = io.StringIO()
    again = prepare_voice_cache(config, every_game(config, ["test-game"]), out=bar)
    assert "(0 rendered now, 4 already cached)" in again
    assert "Voices: 100%" in bar.getvalue() and "4/4" in bar.getvalue()  # the progress bar


def test_starting_a_game_renders_its_phrases_in_the_background(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    game = types.ModuleType("voice_test_game2")
    game.SPEC = phrases_only_spec("test-game2", lambda settings: [  # type: ignore[attr-defined]
        Say("VIRUS", "Teleport complete."), Say("BSAT1", "Access card found.")])
    monkeypatch.setitem(sys.modules, "voice_test_game2", game)
    monkeypatch.setitem(GAMES, "test-game2", "voice_test_game2")
    config = Config.from_text(f"voice: {{cache_dir: {tmp_path}}}\n")
    announcer = SpokenAnnouncer.from_config(config, echo=False, game="test-game2", settings={},
                                            sink=MemorySink())
    assert announcer.voices is not None
    deadline = time.monotonic() + 120
    while not (announcer.voices.is_cached("VIRUS", "Teleport complete.")
               and announcer.voices.is_cached("BSAT1", "Access card found.")):
        assert time.monotonic() < deadline, "background rendering did not finish"
        time.sleep(0.1)
    announcer.announce([Say("BSAT1", "Access card found.")])
    assert announcer.last.cached == [True]
    announcer.close()


def test_a_voice_that_will_not_load_gives_way_to_the_bundled_one(tmp_path: Path, ear: PhraseEar) -> None:
    (tmp_path / "broken.onnx").write_bytes(b"this is not an onnx model")
    (tmp_path / "broken.onnx.json").write_text('{"audio": {"sample_rate": 22050}}')
    config = Config.from_text(f"voice: {{cache_dir: {tmp_path / 'cache'}, voices_dir: {tmp_path}}}\n"
                              "characters: {bsat1: {voice: broken}}\n")
    reports: list[str] = []
    voices = Voices.from_config(config, load="lazy")
    voices._report = reports.append  # type: ignore[method-assign]
    assert config.problems == []
    parts = list(voices.utterance("BSAT1", "Code 1 0."))
    assert ear.hear(parts[0].audio, parts[0].rate) == "code one zero"
    assert len(reports) == 1 and "cannot load Piper voice" in reports[0] and "bundled voice" in reports[0]
    assert voices.specs["bsat1"].voice == ""


def test_say_writes_a_wav_that_says_the_words(tmp_path: Path, ear: PhraseEar,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "virus.wav"
    config = Config.from_text(f"voice: {{cache_dir: {tmp_path / 'cache'}}}\n")
    args = argparse.Namespace(text="Code 2 1.", voice="virus", output=str(out))
    assert say_main(args, config) == 0
    assert f"Wrote {out}" in capsys.readouterr().out
    samples, rate = read_wav(out)
    assert ear.hear(samples.astype(np.float32) / 32768, rate) == "code two one"


def test_say_rejects_unknown_voice_and_empty_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = Config.from_text(f"voice: {{cache_dir: {tmp_path}}}\n")
    args = argparse.Namespace(text="hello", voice="dalek", output=str(tmp_path / "x.wav"))
    assert say_main(args, config) == 2
    assert "No voice called 'dalek'; choose one of: virus, bsat1, narrator" in capsys.readouterr().err
    args = argparse.Namespace(text="  ", voice="virus", output=None)
    assert say_main(args, config) == 2


def _iter_chunks(voices: Voices) -> Iterator[float]:
    start = time.monotonic()
    for _ in voices.utterance("NARRATOR", "Sector one is open. Sector two is sealed. Sector three is lost."):
        yield time.monotonic() - start


def test_long_answers_stream_sentence_by_sentence(voices: Voices) -> None:
    times = list(_iter_chunks(voices))
    assert len(times) == 3
    assert times[0] < 0.7 * times[-1], times  # the first sentence is ready before the rest is made
