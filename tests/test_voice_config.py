"""Characters, voice settings and sounds read from config.yaml; bad lines named, defaults kept."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.config import PROJECT_ROOT, Config
from assistant.voice import effects as fx
from assistant.voice.characters import CharacterSpec, character_for, character_names, default_characters
from assistant.voice.sounds import BUILTIN_SOUNDS, SoundBoard, render_sound, sound_table
from assistant.voice.synth import VoiceMissing, bundled_voice, resolve_voice, voice_id
from assistant.voice.voices import Voices, VoiceSettings


def test_defaults_without_a_config() -> None:
    config = Config()
    virus = CharacterSpec.from_config(config, "virus")
    bsat1 = CharacterSpec.from_config(config, "bsat1")
    assert config.problems == []
    assert virus.effects == fx.parse_chain(default_characters()["virus"]["effects"])[0]
    assert bsat1.glitch is not None and virus.glitch is None
    assert virus.fingerprint("v") != bsat1.fingerprint("v")
    settings = VoiceSettings.from_config(config)
    assert settings.cache_dir == PROJECT_ROOT / "voices" / "cache"
    assert settings.pronounce["BSat1"] == "B Sat one"


def test_character_settings_and_their_problems() -> None:
    config = Config.from_text(
        "characters:\n"
        "  virus:\n"
        "    length_scale: 9\n"
        "    noise_scale: 0.4\n"
        "    pitch: low\n"
        "    effects:\n"
        "      - {type: pitch, semitones: -3}\n"
        "      - type: flanger\n"
        "      - {type: echo, delay: 0.2}\n",
        Path("config.yaml"))
    virus = CharacterSpec.from_config(config, "virus")
    assert virus.length_scale == default_characters()["virus"]["length_scale"]
    assert virus.noise_scale == 0.4
    assert virus.effects == (fx.Pitch(-3), fx.Echo(delay=0.2))
    problems = "\n".join(config.problems)
    assert "config.yaml line 3: characters.virus.length_scale = 9 must be at most 3.0" in problems
    assert "config.yaml line 5: 'characters.virus.pitch' is not a setting" in problems
    assert "config.yaml line 8: characters.virus.effects item 2: unknown effect type 'flanger'" in problems


def test_settings_changes_change_the_fingerprint() -> None:
    base = CharacterSpec.from_config(Config(), "virus")
    slower = CharacterSpec.from_config(Config.from_text("characters: {virus: {length_scale: 1.2}}"), "virus")
    glitchy = CharacterSpec.from_config(
        Config.from_text("characters: {virus: {effects: [{type: glitch}]}}"), "virus")
    plain = CharacterSpec.from_config(Config.from_text("characters: {virus: {effects: []}}"), "virus")
    assert base.fingerprint("joe") != slower.fingerprint("joe")
    assert base.fingerprint("joe") != base.fingerprint("other-voice")
    # the live glitch is applied after the cache, so it does not change what is cached
    assert glitchy.fingerprint("joe") == plain.fingerprint("joe")


def test_speakers_map_to_characters() -> None:
    config = Config.from_text("characters:\n  captain: {length_scale: 1.1}\n")
    names = character_names(config)
    assert names[:3] == ["virus", "bsat1", "narrator"] and "captain" in names
    known = dict.fromkeys(names)
    assert character_for("VIRUS", known) == "virus"
    assert character_for("BSAT1", known) == "bsat1"
    assert character_for("CAPTAIN", known) == "captain"
    assert character_for("DEALER", known) == "narrator"
    captain = CharacterSpec.from_config(config, "captain")
    assert captain.length_scale == 1.1 and captain.effects == ()


def test_voice_files_are_found_or_named(tmp_path: Path) -> None:
    assert resolve_voice("", tmp_path) == bundled_voice()
    assert resolve_voice("en_US-joe-medium", tmp_path) == bundled_voice()
    model = tmp_path / "robot-x.onnx"
    model.write_bytes(b"not really a model")
    with pytest.raises(VoiceMissing, match="no robot-x.onnx.json"):
        resolve_voice("robot-x", tmp_path)
    (tmp_path / "robot-x.onnx.json").write_text("{}")
    assert resolve_voice("robot-x", tmp_path) == model
    assert resolve_voice(str(model), Path("/nonexistent")) == model
    with pytest.raises(VoiceMissing, match="no Piper voice 'nobody'"):
        resolve_voice("nobody", tmp_path)
    first = voice_id(model)
    (tmp_path / "robot-x.onnx.json").write_text('{"changed": 1}')
    assert voice_id(model) != first


def test_missing_voice_falls_back_to_the_bundled_one(tmp_path: Path) -> None:
    config = Config.from_text(
        f"voice: {{cache_dir: {tmp_path / 'cache'}, voices_dir: {tmp_path}}}\n"
        "characters:\n  bsat1:\n    voice: en_GB-nobody-low\n", Path("config.yaml"))
    voices = Voices.from_config(config, load="lazy")
    assert voices.specs["bsat1"].voice == ""
    assert any("config.yaml line 4" in p and "en_GB-nobody-low" in p and "bundled voice" in p
               for p in config.problems)


def test_unwritable_cache_folder_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    config = Config.from_text(f"voice:\n  cache_dir: {blocker / 'cache'}\n", Path("config.yaml"))
    voices = Voices.from_config(config, load="lazy")
    assert voices.cache.write_problem is not None
    assert any("config.yaml line 2" in p and "memory only" in p for p in config.problems)


def test_voice_settings_checked() -> None:
    config = Config.from_text("voice:\n  pause_seconds: -1\n  threads: two\n  pronounce: {Zyx: zix}\n")
    settings = VoiceSettings.from_config(config)
    assert settings.pause_seconds == 0.12 and settings.threads == 0
    assert settings.pronounce["Zyx"] == "zix" and settings.pronounce["BSat1"] == "B Sat one"
    assert len(config.problems) == 2


def test_sounds_are_short_and_audible() -> None:
    for name, recipe in BUILTIN_SOUNDS.items():
        audio = render_sound(recipe, 22050)
        assert 0.02 < len(audio) / 22050 < 2.0, name
        assert 0.05 < np.max(np.abs(audio)) <= 1.0, name
    buzz = render_sound(BUILTIN_SOUNDS["buzz"], 22050)
    spectrum = np.abs(np.fft.rfft(buzz))
    assert np.fft.rfftfreq(len(buzz), 1 / 22050)[np.argmax(spectrum)] == pytest.approx(110, abs=3)


def test_sound_table_from_config() -> None:
    config = Config.from_text(
        "voice:\n  sounds:\n    buzz: {frequency: 90, seconds: 0.3}\n    zap: {wave: saw, frequency: 2000}\n"
        "    bad: {wave: organ}\n    worse: 3\n", Path("config.yaml"))
    table = sound_table(config)
    assert table["buzz"].frequency == 90 and table["buzz"].wave == "square"
    assert table["zap"].wave == "saw"
    assert table["bad"].wave == "sine"
    assert any("line 5" in p and "wave" in p for p in config.problems)
    assert any("line 6" in p and "voice.sounds.worse" in p for p in config.problems)
    board = SoundBoard(table, 16000)
    assert board.known("zap") and not board.known("kazoo")
    assert np.array_equal(board.audio("kazoo"), board.audio("beep"))
