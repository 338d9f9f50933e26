"""`assistant say --voice NAME`: the names it takes are the characters (docs/voices.md: the Virus,
BSat1, the narrator; config.yaml may add more) and every game's speakers, each spoken as in play
(ZARK, with no character of its own, as the narrator). Any other name is told at once, with the
names to choose from, before a speaker is looked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.config import Config
from assistant.voice.characters import character_for, character_names
from assistant.voice.commands import character, game_speakers

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("voice", "meant"), [("virus", "virus"), ("BSat1", "bsat1"), ("bsat1", "bsat1"),
                                              ("Narrator", "narrator"), ("zark", "narrator"), ("ZARK", "narrator")])
def test_the_characters_and_the_games_speakers_are_taken(voice: str, meant: str) -> None:
    assert character(voice, Config()) == meant


def test_each_game_s_speaker_speaks_as_in_play() -> None:
    known = character_names(Config())
    speakers = game_speakers()
    assert {"VIRUS", "BSAT1", "ZARK", "NARRATOR"} <= speakers, speakers
    for speaker in speakers:
        assert character(speaker, Config()) == character_for(speaker, dict.fromkeys(known)), speaker


def test_a_character_added_in_the_config_is_taken() -> None:
    config = Config.from_text("characters:\n  zark:\n    length_scale: 1.2\n")
    assert character("zark", config) == "zark"


@pytest.mark.parametrize("voice", ["omega", "omega virus", "the virus"])
def test_another_name_is_told_at_once_with_the_names_to_choose_from(
        voice: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"voice:\n  cache_dir: {tmp_path / 'voices'}\n", encoding="utf-8")
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-server'}")  # no speaker: not looked for
    code = main(["--config", str(config), "say", "Code zero one.", "--voice", voice])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.splitlines() == [f"No voice called {voice!r}; choose one of: virus, bsat1, narrator (a game's "
                                "other speakers, such as ZARK, speak as the narrator)."], err


@pytest.mark.model
def test_say_as_zark_writes_the_narrator_s_voice(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"voice:\n  render_at_start: false\n  cache_dir: {tmp_path / 'voices'}\n", encoding="utf-8")
    wav = tmp_path / "zark.wav"
    done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "say", "Planets, attack!",
                           "--voice", "zark", "-o", str(wav)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PULSE_SERVER": f"unix:{tmp_path / 'no-server'}"}, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith(f"Wrote {wav}: ") and "narrator voice" in done.stdout, done.stdout
    assert wav.stat().st_size > 10_000
