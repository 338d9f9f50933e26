"""Hearing's settings are declared once (assistant/hearing/settings.py, gathered from the hybrid's
stages): config.yaml's hearing section and docs/hearing.md's table are held to the declarations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from assistant.config import PROJECT_ROOT, Config
from assistant.hearing import STAGE_NAMES, HearingSettings
from assistant.hearing.pipeline import Cascade, field_name
from assistant.hearing.settings import BY_KEY, SETTINGS, settings_table

DOCS = PROJECT_ROOT / "docs" / "hearing.md"
BEGIN = "<!-- settings table: written from assistant/hearing/settings.py; tests/test_hearing_settings.py -->"
END = "<!-- end of the settings table -->"


def _leaves(data: Any, prefix: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix: data}
    found: dict[str, Any] = {}
    for key, value in data.items():
        found.update(_leaves(value, f"{prefix}.{key}"))
    return found


def test_config_yaml_writes_the_player_s_hearing_settings_and_no_more() -> None:
    """config.yaml's hearing part lists what a player would change (``Setting.player``), each with
    its declared default, and nothing else: the stages' tuning lives beside the stages and in
    docs/hearing.md's table (held to the declarations below), and can still be written."""
    data = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text(encoding="utf-8"))
    written = {**_leaves(data["hearing"], "hearing"), "recognizer": data["recognizer"]}
    players = {setting.key for setting in SETTINGS if setting.player}
    assert set(written) == players, (sorted(set(written) - players), sorted(players - set(written)))
    assert len(written) <= 10
    differ = {key: (value, BY_KEY[key].default) for key, value in written.items() if value != BY_KEY[key].default}
    assert not differ, f"config.yaml's value differs from the declared default (written, declared): {differ}"
    tuned = Config.from_text("hearing:\n  whisper:\n    closed_margin: 3.5\n")
    assert HearingSettings.from_config(tuned).closed_margin == 3.5 and tuned.problems == []


def test_every_declared_key_is_a_field_of_hearing_settings_with_that_default() -> None:
    settings = HearingSettings()
    for setting in SETTINGS:
        name = field_name(setting.key)
        if setting.key in ("hearing.models_dir", "hearing.vosk_url", "hearing.vosk_sha256"):
            continue  # a path, and setup's own
        owner = next((part for part in (settings.whisper, settings.spot) if hasattr(part, name)
                      and setting.key.startswith("hearing.whisper.")), settings)
        assert getattr(owner, name) == setting.default, setting.key
    assert HearingSettings.from_config(Config()) == settings


def test_each_stage_has_a_switch_and_turning_it_off_in_config_or_settings_is_the_same() -> None:
    assert STAGE_NAMES == ("spot", "veto", "as_sentences", "closed")
    for stage in Cascade().stages:
        switch = stage.SETTINGS[0]
        assert type(switch.default) in (bool, int) and switch.key in BY_KEY, stage.name
        off = HearingSettings().without(stage.name)
        assert not stage.on(off), stage.name
        text = "\n".join(f"{'  ' * depth}{part}:" for depth, part in enumerate(switch.key.split(".")[:-1]))
        value = "false" if isinstance(switch.default, bool) else "0"
        config = Config.from_text(f"{text}\n{'  ' * switch.key.count('.')}{switch.key.split('.')[-1]}: {value}\n")
        assert HearingSettings.from_config(config) == off and config.problems == [], stage.name
        assert stage.on(HearingSettings()) == bool(switch.default), stage.name


def test_docs_hearing_md_shows_the_declared_settings() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"docs/hearing.md lacks the settings table's markers {BEGIN!r}"
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    assert shown == settings_table(), "docs/hearing.md's settings table is out of date; write this:\n" + \
        settings_table()


def test_a_bad_value_is_reported_and_its_declared_default_used(tmp_path: Path) -> None:
    config = Config.from_text("hearing:\n  budget_seconds: -1\n  whisper:\n    as_sentences: maybe\n")
    settings = HearingSettings.from_config(config)
    assert settings.budget_seconds == BY_KEY["hearing.budget_seconds"].default
    assert settings.as_sentences is BY_KEY["hearing.whisper.as_sentences"].default is False
    assert len(config.problems) == 2 and all("line" in p for p in config.problems), config.problems


def test_every_registered_recognizer_is_a_recognizer_choice() -> None:
    """docs/hearing.md, "Adding a recognizer": a line in RECOGNIZERS and its name in ENGINES."""
    from assistant.hearing import ENGINES, HYBRIDS, RECOGNIZERS

    assert set(ENGINES) == {"auto", *HYBRIDS, *RECOGNIZERS}, (ENGINES, HYBRIDS, sorted(RECOGNIZERS))
