"""Settings: the shipped config.yaml is valid, and a broken line is reported, not fatal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assistant.config import Config, default_state_dir, state_dir
from assistant.games import omega_virus
from assistant.games.omega_virus.engine import Settings
from assistant.hearing import HearingSettings

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_config_is_valid_and_matches_the_defaults() -> None:
    config = Config.load(ROOT / "config.yaml")
    settings = omega_virus.settings_from_config(config)
    assert config.problems == []
    assert settings == Settings().to_dict()


def test_shipped_hearing_settings_are_the_defaults() -> None:
    config = Config.load(ROOT / "config.yaml")
    assert HearingSettings.from_config(config) == HearingSettings()
    assert config.problems == []


def test_score_distance_auto_is_the_whisper_model_s_own() -> None:
    tiny = HearingSettings.from_config(Config.load(ROOT / "config.yaml"))
    assert tiny.score_distance is None and tiny.weigh_distance == 1.2
    base = HearingSettings.from_config(Config.from_text("hearing:\n  whisper:\n    model: faster-whisper-base\n"))
    assert base.weigh_distance == 0.8
    own = HearingSettings.from_config(Config.from_text("hearing:\n  whisper:\n    model: /srv/my-whisper\n"))
    assert own.weigh_distance == 0.8  # a model nobody tuned on: the cautious value
    set_ = Config.from_text("hearing:\n  whisper:\n    model: faster-whisper-base\n    score_distance: 1.5\n")
    assert HearingSettings.from_config(set_).weigh_distance == 1.5 and set_.problems == []
    bad = Config.from_text("hearing:\n  whisper:\n    score_distance: far\n", Path("my.yaml"))
    assert HearingSettings.from_config(bad).weigh_distance == 1.2
    assert any("my.yaml line 3" in p and "must be a number; using 1.2" in p for p in bad.problems), bad.problems


def test_noise_suppression_is_a_level_from_0_to_4() -> None:
    on = Config.from_text("hearing:\n  whisper:\n    noise_suppression: 2\n")
    assert HearingSettings.from_config(on).whisper.noise_suppression == 2 and on.problems == []
    bad = Config.from_text("hearing:\n  whisper:\n    noise_suppression: 9\n", Path("my.yaml"))
    assert HearingSettings.from_config(bad).whisper.noise_suppression == HearingSettings().whisper.noise_suppression
    assert any("my.yaml line 3" in p and "noise_suppression" in p for p in bad.problems), bad.problems
    again = Config.from_text("hearing:\n  whisper:\n    again_suppressed: 4\n")
    assert HearingSettings.from_config(again).again_suppressed == 4 and again.problems == []


def test_bad_values_name_the_line_and_keep_the_default() -> None:
    text = "games:\n  omega_virus:\n    shields_seconds: soon\n    attack_shot: laser\n    wanted_chance: 2\n"
    config = Config.from_text(text, Path("my.yaml"))
    settings = omega_virus.settings_from_config(config)
    assert settings["shields_seconds"] == Settings().shields_seconds
    assert settings["attack_shot"] == "keypad"
    assert settings["wanted_chance"] == Settings().wanted_chance
    assert any(p.startswith("my.yaml line 3: games.omega_virus.shields_seconds = 'soon' must be a number")
               for p in config.problems)
    assert any("line 4" in p and "must be one of keypad, random" in p for p in config.problems)
    assert any("line 5" in p and "at most 1" in p for p in config.problems)


def test_yaml_syntax_error_is_reported_with_its_line() -> None:
    config = Config.from_text("games:\n  omega_virus:\n    shields_seconds: [1, 2\n", Path("c.yaml"))
    assert config.data == {}
    assert config.problems and config.problems[0].startswith("c.yaml line ")


def test_broken_time_chart_and_board_fall_back(tmp_path: Path) -> None:
    board = tmp_path / "board.yaml"
    board.write_text("rooms: []\n", encoding="utf-8")
    text = f"games:\n  omega_virus:\n    board: {board}\n    time_chart:\n      1: [15, 15]\n"
    config = Config.from_text(text)
    settings = omega_virus.settings_from_config(config)
    assert settings["time_chart"] == Settings().time_chart
    assert settings["board"] == Settings().board
    assert any("the board has no rooms" in p for p in config.problems)
    assert any("time_chart" in p for p in config.problems)


def test_cli_reports_a_broken_config_and_plays_on(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("idle_pause_seconds: never\ngames:\n  omega_virus:\n    attack_shot: 3\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus",
                             "--text", "--clock", "virtual"], input="skill zero\n", capture_output=True, text=True,
                            env={"ASSISTANT_STATE_DIR": str(tmp_path / "s"), "PATH": "/usr/bin:/bin"}, cwd=ROOT)
    assert result.returncode == 0
    assert "line 1: idle_pause_seconds = 'never' must be a number" in result.stderr
    assert "line 4: games.omega_virus.attack_shot = 3 must be one of keypad, random" in result.stderr
    assert result.stdout.splitlines()[:2] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]


def run_cli(config: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), *args],
                          input="skill zero\n", capture_output=True, text=True,
                          env={"ASSISTANT_STATE_DIR": str(tmp_path / "s"), "PATH": "/usr/bin:/bin"}, cwd=ROOT)


def test_a_config_that_is_not_utf8_is_reported_once_with_its_line(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_bytes(b"idle_pause_seconds: 10\n# r\xe9glages (Latin-1)\n")
    result = run_cli(config, tmp_path, "play", "omega-virus", "--text", "--clock", "virtual")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert result.stderr.count("config:") == 1
    assert f"config: {config} line 2: not UTF-8 text (byte 0xe9)" in result.stderr
    assert result.stdout.splitlines()[:2] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]


def test_invalid_yaml_is_reported_once_with_the_line_to_fix(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("idle_pause_seconds: 10\ngames:\n  omega_virus:\n    shields_seconds: [1, 2\n", encoding="utf-8")
    for args in (["play", "omega-virus", "--text", "--clock", "virtual"], ["board"]):
        result = run_cli(config, tmp_path, *args)
        assert result.returncode == 0 and "Traceback" not in result.stderr
        assert result.stderr.count("config:") == 1, result.stderr
        assert f"config: {config} line 4: " in result.stderr


def test_numbers_that_are_not_finite_keep_the_default() -> None:
    config = Config.from_text("idle_pause_seconds: .inf\ngames:\n  omega_virus:\n    shields_seconds: .nan\n",
                              Path("c.yaml"))
    assert config.get("idle_pause_seconds", 150.0, minimum=0.0) == 150.0
    settings = omega_virus.settings_from_config(config)
    assert settings["shields_seconds"] == Settings().shields_seconds
    assert any(p.startswith("c.yaml line 1: idle_pause_seconds = inf must be a finite number") for p in config.problems)
    assert any(p.startswith("c.yaml line 4: ") and "finite" in p for p in config.problems)


def test_each_install_has_its_own_state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSISTANT_STATE_DIR")
    assert state_dir(Config.load(ROOT / "config.yaml")) == ROOT / "state"
    assert state_dir(Config()) == ROOT / "state"
    assert state_dir(Config.from_text("state_dir: elsewhere/games\n")) == ROOT / "elsewhere" / "games"
    assert state_dir(Config.from_text(f"state_dir: {tmp_path}\n")) == tmp_path
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    one, two = default_state_dir(tmp_path / "site-a"), default_state_dir(tmp_path / "site-b")
    assert one.parent == two.parent == tmp_path / "xdg" / "omega-assistant" and one != two
    assert default_state_dir(tmp_path / "site-a") == one  # keyed to the install, stable
    monkeypatch.setenv("ASSISTANT_STATE_DIR", str(tmp_path / "env"))
    assert state_dir(Config.load(ROOT / "config.yaml")) == tmp_path / "env"
