"""``assistant transcribe``: real WAV files (any rate, channels, format) through the real command."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from assistant.hearing.audio import RATE, resample
from tests.support.spoken import SPEAKERS, ClipMaker

pytestmark = pytest.mark.model

PIPER, ESPEAK_US = SPEAKERS[0], SPEAKERS[3]


@pytest.fixture(scope="module")
def maker(tmp_path_factory: pytest.TempPathFactory) -> ClipMaker:
    return ClipMaker(tmp_path_factory.getbasetemp() / "hearing-clips")


def save(path: Path, clip: np.ndarray, rate: int = RATE, channels: int = 1) -> Path:
    audio = resample(clip.astype(np.float64), RATE, rate) if rate != RATE else clip.astype(np.float64)
    frames = np.repeat(np.round(audio)[:, None], channels, axis=1).clip(-32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames.tobytes())
    return path


def transcribe(*args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "assistant"]
    if config is not None:
        cmd += ["--config", str(config)]
    return subprocess.run(cmd + ["transcribe", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def pocketsphinx_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(f"recognizer: pocketsphinx\nhearing:\n  models_dir: {tmp_path / 'models'}\n")
    return path


@pytest.mark.parametrize("text, rate, channels, buttons", [
    ("explore two one zero", 16000, 1, "2 2 1 0"),
    ("shields zero two are", 44100, 2, "0 2 R"),
    ("pass", 22050, 1, "0"),
    ("repeat", 48000, 2, "R"),
    ("attack the red commando", 8000, 1, "1 0 0"),
])
def test_json_with_buttons(maker: ClipMaker, tmp_path: Path, pocketsphinx_config: Path, text: str,
                           rate: int, channels: int, buttons: str) -> None:
    """Any rate and channel count; the buttons key is the Command Center entry."""
    wav = save(tmp_path / "c.wav", maker.say(text, PIPER), rate, channels)
    done = transcribe(str(wav), "--json", config=pocketsphinx_config)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["recognizer"] == "pocketsphinx"
    assert out["buttons"] == buttons
    assert out["command"]["intent"] == text.split()[0]


def test_text_output_and_a_command_without_buttons(maker: ClipMaker, tmp_path: Path,
                                                   pocketsphinx_config: Path) -> None:
    wav = save(tmp_path / "t.wav", maker.say("how much time is left", ESPEAK_US))
    done = transcribe(str(wav), config=pocketsphinx_config)
    assert done.returncode == 0, done.stderr
    assert "heard:   how much time is left" in done.stdout
    assert "command: time_left" in done.stdout
    assert "buttons" not in done.stdout
    out = json.loads(transcribe(str(wav), "--json", config=pocketsphinx_config).stdout)
    assert "buttons" not in out


def test_chatter_exits_1(maker: ClipMaker, tmp_path: Path, pocketsphinx_config: Path) -> None:
    wav = save(tmp_path / "chat.wav", maker.say("did you remember to feed the cat", PIPER))
    done = transcribe(str(wav), "--json", config=pocketsphinx_config)
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert out["command"] is None and out["reason"]


def test_silence_exits_1(tmp_path: Path, pocketsphinx_config: Path) -> None:
    wav = save(tmp_path / "quiet.wav", np.zeros(RATE, dtype=np.int16))
    done = transcribe(str(wav), config=pocketsphinx_config)
    assert done.returncode == 1
    assert "command: none" in done.stdout


def test_other_games_grammar(maker: ClipMaker, tmp_path: Path, pocketsphinx_config: Path) -> None:
    wav = save(tmp_path / "h.wav", maker.say("what can i say", PIPER))
    done = transcribe(str(wav), "--game", "planets", "--json", config=pocketsphinx_config)
    out = json.loads(done.stdout)
    assert out["game"] == "planets" and "buttons" not in out
    assert done.returncode in (0, 1)


@pytest.mark.parametrize("content, message", [(b"hello", "not a WAV file"), (None, "No such file")])
def test_unreadable_files_exit_2(tmp_path: Path, pocketsphinx_config: Path, content: bytes | None,
                                 message: str) -> None:
    path = tmp_path / "bad.wav"
    if content is not None:
        path.write_bytes(content)
    done = transcribe(str(path), config=pocketsphinx_config)
    assert done.returncode == 2
    assert message in done.stderr


def test_vosk_without_a_model_exits_2_with_advice(maker: ClipMaker, tmp_path: Path) -> None:
    config = tmp_path / "vosk.yaml"
    config.write_text(f"recognizer: vosk\nhearing:\n  models_dir: {tmp_path / 'none'}\n")
    wav = save(tmp_path / "p.wav", maker.say("pass", PIPER))
    done = transcribe(str(wav), config=config)
    assert done.returncode == 2
    assert "assistant setup" in done.stderr


def test_text_recognizer_setting_still_transcribes(maker: ClipMaker, tmp_path: Path) -> None:
    config = tmp_path / "text.yaml"
    config.write_text(f"recognizer: text\nhearing:\n  models_dir: {tmp_path / 'none'}\n")
    wav = save(tmp_path / "p.wav", maker.say("teleport", PIPER))
    done = transcribe(str(wav), "--json", config=config)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["recognizer"] == "pocketsphinx+whisper"  # what auto takes here
    # how it decided: the first pass's step, then the stages Whisper's say went through
    stages = [step["stage"] for step in out["steps"]]
    assert stages[0] == "first" and "closed" in stages, out["steps"]
    assert all(step["verdict"] and step["cpu_seconds"] >= 0 for step in out["steps"])


def test_moment_list_names_the_moments_of_play() -> None:
    done = transcribe("--moment", "list", "--game", "omega-virus")
    assert done.returncode == 0, done.stderr
    names = {line.split()[0] if not line.startswith("  yes or no") else "yes or no"
             for line in done.stdout.splitlines()[1:]}
    assert {"move", "shields", "skill", "signon", "terminate", "yes or no", "paused", "menu"} <= names, names


def test_a_moment_narrows_what_is_taken(maker: ClipMaker, tmp_path: Path, pocketsphinx_config: Path) -> None:
    """A real clip of "pass": taken with the whole grammar and in a move, where it is asked;
    at the skill question, where it is not listened for, it is not taken as "pass"."""
    wav = save(tmp_path / "pass.wav", maker.say("pass", PIPER))
    whole = json.loads(transcribe(str(wav), "--json", config=pocketsphinx_config).stdout)
    assert whole["command"]["intent"] == "pass" and "moment" not in whole
    move = json.loads(transcribe(str(wav), "--moment", "move", "--json", config=pocketsphinx_config).stdout)
    assert move["moment"] == "move" and "pass" in move["listened_for"] and "skill" not in move["listened_for"]
    assert move["command"]["intent"] == "pass"
    done = transcribe(str(wav), "--moment", "skill", "--json", config=pocketsphinx_config)
    skill = json.loads(done.stdout)
    assert "pass" not in skill["listened_for"] and "skill" in skill["listened_for"]
    assert skill["command"] is None or skill["command"]["intent"] in skill["listened_for"], skill
    assert done.returncode == (1 if skill["command"] is None else 0)


def test_the_menu_moment_hears_a_game_s_name(maker: ClipMaker, tmp_path: Path, pocketsphinx_config: Path) -> None:
    wav = save(tmp_path / "menu.wav", maker.say("the battle of the planets", ESPEAK_US))
    done = transcribe(str(wav), "--moment", "menu", config=pocketsphinx_config)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "moment:  menu (listening for" in done.stdout
    assert "command: choose_game game=planets" in done.stdout


def test_an_unknown_moment_exits_2_naming_the_known_ones(tmp_path: Path, pocketsphinx_config: Path) -> None:
    wav = save(tmp_path / "q.wav", np.zeros(RATE, dtype=np.int16))
    done = transcribe(str(wav), "--moment", "sheilds", config=pocketsphinx_config)
    assert done.returncode == 2
    assert "no moment 'sheilds' in omega-virus; known:" in done.stderr and "shields" in done.stderr


def test_no_file_exits_2_saying_what_to_give() -> None:
    done = transcribe()
    assert done.returncode == 2
    assert "give a WAV file (or --moment list)" in done.stderr
