"""Settings: the shipped config.yaml is valid, and a broken line is reported, not fatal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assistant.config import RETIRED, Config, default_state_dir, state_dir
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


def test_a_removed_hybrid_stage_s_key_is_reported_and_the_rest_of_the_config_kept() -> None:
    """An older config.yaml may still set a stage that was removed (it did not pay): each such key
    is named with its line, as no longer a setting, and ignored; the lines around it still count."""
    text = ("hearing:\n  budget_seconds: 5.0\n  whisper:\n    weigh: true\n    again_suppressed: 4\n"
            "    as_sentences: true\n    score_distance: 1.5\n")
    config = Config.from_text(text, Path("my.yaml"))
    settings = HearingSettings.from_config(config)
    assert settings.budget_seconds == 5.0 and settings.as_sentences
    assert settings == HearingSettings(budget_seconds=5.0, as_sentences=True)
    assert len(config.problems) == 3, config.problems
    for line, key in ((4, "weigh"), (5, "again_suppressed"), (7, "score_distance")):
        assert any(p.startswith(f"my.yaml line {line}: 'hearing.whisper.{key}' is no longer a setting")
                   and "It is ignored" in p for p in config.problems), (key, config.problems)


def test_the_free_text_s_window_and_switch_are_no_longer_settings() -> None:
    """Whisper's free text is written over its own 30 s window whenever the grammar search is not
    clear: a window cut shorter made it write real people's button entries twice. A config that
    still sets either is told so, and plays on."""
    old = Config.from_text("hearing:\n  whisper:\n    window: 10\n    free_text: false\n", Path("my.yaml"))
    HearingSettings.from_config(old)
    assert any("'hearing.whisper.window' is no longer a setting" in p for p in old.problems), old.problems
    assert any("'hearing.whisper.free_text' is no longer a setting" in p for p in old.problems), old.problems


def test_noise_suppression_is_a_level_from_0_to_4() -> None:
    on = Config.from_text("hearing:\n  whisper:\n    noise_suppression: 2\n")
    assert HearingSettings.from_config(on).whisper.noise_suppression == 2 and on.problems == []
    bad = Config.from_text("hearing:\n  whisper:\n    noise_suppression: 9\n", Path("my.yaml"))
    assert HearingSettings.from_config(bad).whisper.noise_suppression == HearingSettings().whisper.noise_suppression
    assert any("my.yaml line 3" in p and "noise_suppression" in p for p in bad.problems), bad.problems


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


# ---------------------------------------------------------------- one schema: every key declared once


def test_config_yaml_holds_to_the_schema() -> None:
    """Every key written in config.yaml is a declared setting, and every value written there is the
    declared default (config.yaml documents the defaults; it must not drift from them)."""
    import yaml

    from assistant.schema import declared, setting, unknown_keys
    from assistant.voice.characters import default_characters

    defaults = default_characters()
    data = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    assert list(unknown_keys(data)) == []
    config = Config.load(ROOT / "config.yaml")
    compared = 0
    for key, declaration in declared().items():
        if "*" in key or declaration.default is None or not config.has(key):
            continue
        assert declaration.checked(config.raw(key)) == declaration.default, key
        compared += 1
    assert compared >= 40  # every key a player would change is written out in config.yaml
    for name, character in data["characters"].items():
        for field, value in character.items():
            assert setting(f"characters.{name}.{field}").checked(value, defaults[name][field]) \
                == defaults[name][field], (name, field)


def test_every_setting_read_by_name_is_declared() -> None:
    """``config.value("...")`` with a key nobody declared would fail at run time, a settings
    dataclass's ``setting_field("...")`` at import: none in the code."""
    import re

    from assistant.schema import setting

    keys = set()
    for path in (ROOT / "assistant").rglob("*.py"):
        keys.update(re.findall(r"(?:config\.value|setting_field)\(\"([a-z_.]+)\"", path.read_text(encoding="utf-8")))
    assert len(keys) > 30
    for key in sorted(keys):
        setting(key)


def test_the_parts_dataclass_defaults_are_the_declared_ones() -> None:
    """(LiveSettings' and hearing's: tests/test_hearing_settings.py, field by field.)"""
    from assistant.phone import PhoneSettings
    from assistant.schema import declared
    from assistant.voice.voices import VoiceSettings

    settings = declared()
    phone = PhoneSettings()
    for key in ("bind", "port", "mdns"):
        assert getattr(phone, key) == settings[f"phone.{key}"].default, key
    voice = VoiceSettings()
    for key in ("output_device", "threads", "render_at_start", "memory_cache_mb", "pause_seconds"):
        assert getattr(voice, key) == settings[f"voice.{key}"].default, key


def test_an_unknown_key_is_reported_with_its_line_and_the_nearest_setting() -> None:
    text = ("volumne: 3\ngames:\n  omega_virus:\n    sheilds_seconds: 5\ncharacters:\n  zark:\n    volum: 1.2\n"
            "voice:\n  volume: 4\nwhatever: 1\n")
    config = Config.from_text(text, Path("my.yaml"))
    assert config.problems == [
        "my.yaml line 1: 'volumne' is not a setting; did you mean 'volume'? It is ignored.",
        "my.yaml line 4: 'games.omega_virus.sheilds_seconds' is not a setting; did you mean "
        "'games.omega_virus.shields_seconds'? It is ignored.",
        "my.yaml line 7: 'characters.zark.volum' is not a setting; did you mean 'characters.zark.volume'? "
        "It is ignored.",
        "my.yaml line 9: 'voice.volume' is not a setting; did you mean 'volume'? It is ignored.",
        "my.yaml line 10: 'whatever' is not a setting (config.yaml and docs/hearing.md list the settings). "
        "It is ignored.",
    ]
    assert config.value("volume") == 10  # the typo changed nothing


def test_cli_reports_a_typo_with_its_line_and_the_nearest_key_and_plays_on(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("idle_pause_seconds: 100\ngames:\n  omega_virus:\n    sheilds_seconds: 5\nvolumne: 3\n",
                      encoding="utf-8")
    for args in (["play", "omega-virus", "--text", "--clock", "virtual"], ["doctor"]):
        result = run_cli(config, tmp_path, *args)
        out = result.stderr + result.stdout
        assert "Traceback" not in out
        assert (f"{config} line 4: 'games.omega_virus.sheilds_seconds' is not a setting; did you mean "
                "'games.omega_virus.shields_seconds'?") in out, out
        assert f"{config} line 5: 'volumne' is not a setting; did you mean 'volume'?" in out
    played = run_cli(config, tmp_path, "play", "omega-virus", "--text", "--clock", "virtual")
    assert played.returncode == 0
    assert played.stdout.splitlines()[:2] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]


def test_a_state_dir_that_is_not_text_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """``state_dir: 42`` made a folder ``42/``; it must be a path, written as text."""
    monkeypatch.delenv("ASSISTANT_STATE_DIR")
    config = Config.from_text("state_dir: 42\n", Path("c.yaml"))
    assert state_dir(config) == default_state_dir()
    assert config.problems == ["c.yaml line 1: state_dir = 42 must be text: the path of a folder; using ''."]


def test_a_state_folder_under_proc_is_reported_truthfully_in_play(tmp_path: Path) -> None:
    """Finding 7: /proc takes no folders; the player is told that, not that part of the path is a file."""
    config = tmp_path / "config.yaml"
    config.write_text("keypad:\n  source: none\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus",
                             "--text", "--clock", "virtual"], input="skill zero\n", capture_output=True, text=True,
                            env={"ASSISTANT_STATE_DIR": "/proc/omega-state", "PATH": "/usr/bin:/bin"}, cwd=ROOT)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert ("the state folder /proc/omega-state cannot be made: /proc takes no new folders (it is not a folder "
            "on a disk)") in result.stderr, result.stderr
    assert "part of its path is not a folder" not in result.stderr


def test_the_studies_switches_are_no_longer_settings() -> None:
    """Settings that existed only so that studies could turn part of the grammar search off are
    gone, their shipped behaviour the only one: a config that still sets one is told it is
    ignored, and plays on with the defaults."""
    study = [key for key, why in RETIRED.items() if "served a study" in why]
    assert len(study) == 6, study
    text = "hearing:\n  whisper:\n" + "".join(f"    {key.rsplit('.', 1)[1]}: false\n" for key in study)
    old = Config.from_text(text, Path("my.yaml"))
    assert HearingSettings.from_config(old) == HearingSettings()
    for line, key in enumerate(study, start=3):
        assert any(p.startswith(f"my.yaml line {line}: {key!r} is no longer a setting") and "It is ignored" in p
                   for p in old.problems), (key, old.problems)
    assert len(old.problems) == len(study), old.problems
