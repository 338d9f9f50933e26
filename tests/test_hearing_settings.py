"""Hearing's settings are declared once (assistant/hearing/settings.py, gathered from the hybrid's
stages): config.yaml's hearing section and docs/hearing.md's table are held to the declarations."""

from __future__ import annotations

from collections import Counter
from dataclasses import MISSING, Field, fields
from pathlib import Path
from typing import Any

import yaml

from assistant.config import PROJECT_ROOT, Config
from assistant.hearing import STAGE_NAMES, HearingSettings, settings_table
from assistant.hearing.pipeline import Cascade, field_name, without
from assistant.hearing.pocketsphinx_engine import PocketSphinxTuning
from assistant.hearing.settings import BY_KEY, SETTINGS, SpotSettings, WhisperSettings
from assistant.live import settings as live
from assistant.live.loop import LiveSettings
from assistant.live.run import live_settings
from assistant.schema import KEY, Setting, carried, declared_fields

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


#: Each settings dataclass with the declarations its fields are made from, and the declared keys
#: it holds: every one of them, each once, across the dataclasses that share a part's settings
#: (HearingSettings and its nested parts). Declared keys no dataclass holds, and why:
#: hearing.models_dir ("": the project's models/ folder, a Path resolved from config.yaml's
#: folder), hearing.vosk_url and hearing.vosk_sha256 (`assistant setup`'s), live.input_device and
#: live.spoken_extra_seconds (read where the microphone and a spoken answer are made).
HELD: dict[type[Any], tuple[tuple[Setting[Any], ...], frozenset[str]]] = {
    HearingSettings: (SETTINGS, frozenset(BY_KEY) - {"hearing.models_dir", "hearing.vosk_url", "hearing.vosk_sha256"}),
    PocketSphinxTuning: (SETTINGS, frozenset(key for key in BY_KEY if key.startswith("hearing.pocketsphinx.")
                                             and key != "hearing.pocketsphinx.min_confidence")),
    LiveSettings: (live.SETTINGS, frozenset({"listen", *(s.key for s in live.SETTINGS if s.key.startswith("live.")
                                                         and s.key not in ("live.input_device",
                                                                           "live.spoken_extra_seconds"))})),
}
#: Nested parts: their keys are counted with the dataclass that holds them.
NESTED = {HearingSettings: (WhisperSettings, SpotSettings)}


def _default(f: Field[Any]) -> Any:
    return f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]


def test_every_settings_dataclass_holds_each_of_its_declared_keys_once_with_the_declared_default() -> None:
    """A field that is a setting is made from its declaration (``schema.declared_field``): its
    name is its key's (``pipeline.field_name``: no renaming on the way), its default exactly the
    declared one; no declared key lacks its field; and no other field is named as a declared key
    (a default copied by hand, which could drift)."""
    for kind, (declarations, keys) in HELD.items():
        by_key = {setting.key: setting for setting in declarations}
        names = {field_name(key) for key in by_key} - {"models_dir"}
        held: Counter[str] = Counter()
        for part in (kind, *NESTED.get(kind, ())):
            for f in fields(part):
                if KEY not in f.metadata:
                    assert f.name not in names, f"{part.__name__}.{f.name} copies a declared default"
                    continue
                key = f.metadata[KEY]
                held[key] += 1
                assert f.name == field_name(key), (part.__name__, f.name, key)
                default = _default(f)
                assert default == by_key[key].default and type(default) is type(by_key[key].default), \
                    (part.__name__, key, default, by_key[key].default)
        assert set(held) == keys, (kind.__name__, sorted(keys - set(held)), sorted(set(held) - keys))
        assert all(count == 1 for count in held.values()), (kind.__name__, held)
    assert set(declared_fields(HearingSettings)) | set(declared_fields(WhisperSettings)) | \
        set(declared_fields(SpotSettings)) == HELD[HearingSettings][1]
    assert HearingSettings.from_config(Config()) == HearingSettings()
    assert live_settings(Config()) == LiveSettings()
    assert carried(HearingSettings(), PocketSphinxTuning) == PocketSphinxTuning()


def test_the_first_pass_is_tuned_by_the_same_settings_read_from_config() -> None:
    """config.yaml's ``hearing.pocketsphinx.*`` reaches PocketSphinx's tuning by key, unrenamed."""
    config = Config.from_text("hearing:\n  pocketsphinx:\n    chatter_words: 12\n    chatter_loop: 0.2\n"
                              "    phone_check: 0.5\n")
    tuning = carried(HearingSettings.from_config(config), PocketSphinxTuning)
    assert (tuning.chatter_words, tuning.chatter_loop, tuning.phone_check) == (12, 0.2, 0.5)
    assert tuning.chatter_entry == BY_KEY["hearing.pocketsphinx.chatter_entry"].default and config.problems == []


def test_each_stage_has_a_switch_and_turning_it_off_in_config_or_settings_is_the_same() -> None:
    assert STAGE_NAMES == ("spot", "veto", "as_sentences", "closed")
    for stage in Cascade().stages:
        switch = BY_KEY[stage.switch]
        assert type(switch.default) in (bool, int), stage.name
        off = without(HearingSettings(), stage.name)
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
