"""The MSX card battle's data files and settings: labelled examples, checked edits, clear reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from assistant.config import Config
from assistant.engine import Command, Say
from assistant.games import msx_cards
from assistant.games.msx_cards.tables import KINDS, Tables, load_tables, packaged


def config_for(tmp_path: Path, section: dict[str, object]) -> Config:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"games": {"msx_cards": section}}), encoding="utf-8")
    return Config.load(path)


def write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_packaged_data_is_complete_and_labelled_as_examples() -> None:
    data, problems = load_tables({})
    assert problems == []
    assert data["examples"] == list(KINDS)
    for kind in KINDS:
        text = (Path(msx_cards.__file__).parent / f"{kind}.yaml").read_text(encoding="utf-8")
        assert "EXAMPLE DATA" in text and packaged(kind)["example"] is True
    tables = Tables.from_data(data)
    assert len(tables.cards) == 10
    assert {c.race for c in tables.cards} == {"yellow", "green", "brown", "blue", "red"}
    assert [w.die for w in tables.worlds] == [8, 12, 12, 20, 20]
    # two Bonus screens, before the two Bosses fought with the d20
    assert [w.bonus for w in tables.worlds] == [False, False, False, True, True]
    assert all(w.boss.turns == 8 for w in tables.worlds)
    # what the manual says, kept as it says it
    assert tables.capsules["GOTO"].set_defense == -12 and tables.capsules["MSX2"].damage_taken == -8
    assert tables.capsules["SHIELD"].duration == "two_turns" and tables.capsules["CONT."].duration == "battle"
    sun, medicines = tables.events
    assert sun.negative and sun.amounts["red"] == 4 and sun.amounts["brown"] == 5
    assert not medicines.negative and medicines.amounts["yellow"] == 7


def test_settings_hold_the_data_and_are_json_for_the_journal(tmp_path: Path) -> None:
    settings = msx_cards.settings_from_config(config_for(tmp_path, {"event_chance": 0.25}))
    assert json.loads(json.dumps(settings)) == settings
    assert settings["event_chance"] == 0.25 and settings["enemies_per_world"] == 3
    game = msx_cards.create(3, settings)
    assert game.settings.event_chance == 0.25 and game.tables.mission == "Example Mission"
    start = [o.line() for o in game.start()]
    assert "NARRATOR: Note: the cards, capsules, events, bosses and worlds tables are examples" in start[1]


def test_your_own_files_replace_the_examples(tmp_path: Path) -> None:
    cards = write(tmp_path, "cards.yaml", {"cards": [
        {"number": 42, "name": "Valis", "race": "blue", "attack": 9, "defense": -4, "vitality": 30,
         "pentagon": 4, "skill": "Increased Damage plus 5"}]})
    worlds = packaged("worlds")
    short = {"name": "Short", "worlds": [{"name": "Moai Island", "die": 20, "boss": "Boss 5"}]}
    worlds["missions"].append(short)
    worlds_file = write(tmp_path, "worlds.yaml", worlds)
    config = config_for(tmp_path, {"cards_file": cards, "worlds_file": worlds_file, "mission": "Short",
                                   "enemies_per_world": 2})
    settings = msx_cards.settings_from_config(config)
    assert config.problems == []
    assert settings["data"]["examples"] == ["capsules", "events", "bosses", "worlds"]
    game = msx_cards.create(1, settings)
    start = [o.line() for o in game.start()]
    assert ("NARRATOR: World 1, Moai Island: the attack die is the d20. Defeat 2 enemies, then the Boss, "
            "Boss 5.") in start
    text = [o.line() for o in game.handle(Command("fighter_card", {"card": "42"}))]
    assert text[0] == ("NARRATOR: Your fighter is card 42, Valis: blue, attack 9, defense minus 4, "
                       "vitality 30, pentagon 4. Skill: Increased Damage plus 5")


BROKEN = [
    ("cards", "no such file", None, "cannot read the cards file"),
    ("cards", "bad yaml", "cards: [name: {", "is not valid YAML"),
    ("cards", "bad race", {"cards": [{"name": "X", "race": "purple", "attack": 1, "defense": 0, "vitality": 5,
                                      "pentagon": 0}]},
     "race must be one of yellow, green, brown, blue, red"),
    ("cards", "same number", {"cards": [
        {"number": 1, "name": "A", "race": "red", "attack": 1, "defense": 0, "vitality": 5, "pentagon": 0},
        {"number": 1, "name": "B", "race": "red", "attack": 1, "defense": 0, "vitality": 5, "pentagon": 0}]},
     "card number 1 is used twice"),
    ("capsules", "unknown effect", {"capsules": {"ZAP": {"lightning": 3}}, "races": {"red": ["ZAP"]}},
     "capsules: ZAP: unknown effect 'lightning'"),
    ("capsules", "unknown slot", {"capsules": {"ZAP": {"attack": 3}}, "races": {"red": ["ZAP", "ZIP"]}},
     "the red row names 'ZIP', which is not a capsule"),
    ("events", "missing race", {"events": [{"name": "Rain", "kind": "negative", "damage": {"red": 2},
                                            "resist": [5]}]}, "damage has no value for yellow"),
    ("events", "no resist", {"events": [{"name": "Rain", "kind": "negative", "damage": 2}]},
     "a negative event needs resist"),
    ("bosses", "uneven turns", {"bosses": {"Boss 1": {"white": [1, 2], "gray": [1]}}},
     "white and gray must have the same number of turns"),
    ("worlds", "missing boss", {"missions": [{"name": "M", "worlds": [{"die": 8, "boss": "Nobody"}]}]},
     "boss 'Nobody' is not in the bosses file"),
]


@pytest.mark.parametrize("kind,label,content,message", BROKEN, ids=[b[1] for b in BROKEN])
def test_a_broken_file_is_reported_and_the_example_is_used(tmp_path: Path, kind: str, label: str,
                                                            content: object, message: str) -> None:
    path = str(tmp_path / "missing.yaml") if content is None else write(tmp_path, f"{kind}.yaml", content)
    config = config_for(tmp_path, {f"{kind}_file": path})
    settings = msx_cards.settings_from_config(config)
    assert len(config.problems) == 1, config.problems
    assert message in config.problems[0]
    assert "using the packaged example" in config.problems[0]
    assert kind in settings["data"]["examples"]
    msx_cards.create(1, settings).start()


def test_bad_settings_are_reported_and_defaults_used(tmp_path: Path) -> None:
    config = config_for(tmp_path, {"event_chance": 2, "deaths_per_world": "three", "mission": "Nowhere"})
    settings = msx_cards.settings_from_config(config)
    assert settings["event_chance"] == 0.1 and settings["deaths_per_world"] == 3
    text = "\n".join(config.problems)
    assert "games.msx_cards.event_chance = 2 must be at most 1.0" in text
    assert "games.msx_cards.deaths_per_world = 'three' must be a whole number" in text
    assert "games.msx_cards.mission 'Nowhere' is not in the worlds file (missions: Example Mission)" in text


def test_fixed_phrases_for_the_voice_cache() -> None:
    settings = msx_cards.settings_from_config(Config())
    phrases = msx_cards.fixed_phrases(settings)
    texts = [p.text for p in phrases]
    assert all(isinstance(p, Say) and p.speaker == "NARRATOR" for p in phrases)
    assert len(texts) == len(set(texts)) > 150
    assert "Your turn: attack, or use a capsule." in texts
    assert ("The enemy drawn is card 7, Shooter Rookie: blue, attack 6, defense minus 1, vitality 17, "
            "pentagon 2.") in texts
    assert "You use capsule 2, GOTO: Defense stays at minus 12 for one turn." in texts
    assert ("Scorching Sun: a negative event, on a dark quadrant: double damage. "
            "Both fighters roll to resist.") in texts
