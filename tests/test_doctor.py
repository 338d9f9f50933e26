"""`assistant doctor` on the real (virtual) audio devices: what is used, what is missing, how to fix it."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.audio_env import ensure_audio


def doctor(tmp_path: Path, config: str, stdin: int = subprocess.DEVNULL,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "config.yaml"
    path.write_text(config, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "assistant", "--config", str(path), "doctor"], stdin=stdin,
                          capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})})


MEASURED_LINE = ("  ok       recognizer: auto picks PocketSphinx first, Whisper tiny.en second on this machine; the "
                 "figures in bench/results/bench_accuracy.md are for PocketSphinx first, Whisper tiny.en second\n")


def vosk_model_on_disk(models: Path) -> None:
    """A folder shaped like the English Vosk model where setup would put it (never loaded by auto)."""
    from assistant.hearing.vosk_engine import DEFAULT_MODEL

    for name in ("am/final.mdl", "conf/model.conf"):
        (models / DEFAULT_MODEL / name).parent.mkdir(parents=True, exist_ok=True)
        (models / DEFAULT_MODEL / name).write_text("not a model\n")


@pytest.mark.audio
def test_doctor_reports_what_will_be_used(tmp_path: Path) -> None:
    ensure_audio()
    vosk_model_on_disk(tmp_path / "models")  # what `assistant setup --vosk` leaves: auto does not use it
    result = doctor(tmp_path, "recognizer: auto\nkeypad:\n  source: none\n"
                              f"hearing:\n  models_dir: {tmp_path / 'models'}\n")
    assert result.returncode == 0, result.stdout
    assert "ok       microphone: will use" in result.stdout
    assert MEASURED_LINE in result.stdout
    assert "Vosk" not in result.stdout


def test_the_recognizer_line_says_what_auto_picks_and_what_the_figures_are_for(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """auto: the combination it picks here and the one the published figures were heard with; a
    recognizer set in config.yaml: that, what auto would pick, the figures' combination; vosk-hybrid:
    unmeasured here, and the one command that measures it on this machine (runs: --count)."""
    import shlex

    from assistant.config import PROJECT_ROOT, Config
    from assistant.doctor import Doctor, hearing

    models = tmp_path / "models"
    vosk_model_on_disk(models)

    def line(recognizer: str) -> str:
        hearing(Doctor(Config.from_text(f"recognizer: {recognizer}\nhearing:\n  models_dir: {models}\n")))
        found = [text for text in capsys.readouterr().out.splitlines(keepends=True) if "recognizer:" in text]
        assert len(found) == 1
        return found[0]

    assert line("auto") == MEASURED_LINE
    figures = "the figures in bench/results/bench_accuracy.md are for PocketSphinx first, Whisper tiny.en second"
    assert line("pocketsphinx") == (
        "  ok       recognizer: pocketsphinx (set in config.yaml): PocketSphinx alone; auto would pick PocketSphinx "
        f"first, Whisper tiny.en second on this machine; {figures}\n")
    measure = (".venv/bin/python bench/bench_accuracy.py --engines hybrid,vosk-hybrid --sets held-out --per-intent 1 "
               "--voices 1 --talk-voices 1 --talk-every 3 --conditions 'clean,white 20 dB,talkers 10 dB' --fsdd '' "
               "--results ''")
    assert line("vosk-hybrid") == (
        "  ok       recognizer: vosk-hybrid (set in config.yaml): Vosk first, Whisper tiny.en second, unmeasured here "
        f"(auto would pick PocketSphinx first, Whisper tiny.en second on this machine; {figures}). Measure it "
        f"beside PocketSphinx first, Whisper tiny.en second on this machine (about 400 clips each): {measure}\n")
    command = shlex.split(measure)
    counted = subprocess.run([sys.executable, *command[1:], "--count"], cwd=PROJECT_ROOT, capture_output=True,
                             text=True, timeout=300)
    assert counted.returncode == 0, counted.stderr
    clips = int(counted.stdout.split(" clips (")[0].rsplit(" ", 1)[1])
    assert 300 <= clips <= 500, counted.stdout  # "about 400 clips each"


@pytest.mark.audio
def test_doctor_names_a_missing_microphone_and_the_fix(tmp_path: Path) -> None:
    ensure_audio()
    result = doctor(tmp_path, "live:\n  input_device: no-such-mic\nkeypad:\n  source: evdev\n")
    assert result.returncode == 1
    assert "PROBLEM  microphone: No microphone named like 'no-such-mic'. Found:" in result.stdout
    assert "Set live.input_device in config.yaml" in result.stdout
    assert "PROBLEM  private presses:" in result.stdout


@pytest.mark.audio
def test_a_missing_microphone_is_not_fixed_by_start_sh(tmp_path: Path) -> None:
    """Only the microphone is missing: the closing line says to plug one in, not to run ./start.sh."""
    ensure_audio()
    result = doctor(tmp_path, "live:\n  input_device: no-such-mic\nkeypad:\n  source: none\n")
    assert result.returncode == 1
    assert result.stdout.count("PROBLEM") == 1, result.stdout
    assert result.stdout.splitlines()[-1] == "To fix: plug in a microphone (or set live.input_device)."


def test_the_terminal_keypad_is_ok_only_at_a_terminal(tmp_path: Path) -> None:
    piped = doctor(tmp_path, "keypad:\n  source: terminal\n")
    assert piped.returncode == 1
    assert "PROBLEM  private presses: keys typed in the terminal, but this input is not a terminal" in piped.stdout
    leader, follower = pty.openpty()
    try:
        at_terminal = doctor(tmp_path, "keypad:\n  source: terminal\n", stdin=follower)
    finally:
        os.close(leader)
        os.close(follower)
    assert "ok       private presses: keys typed in this terminal" in at_terminal.stdout


def test_keypad_sources_are_reported_as_play_opens_them(tmp_path: Path) -> None:
    """phone, [fifo, phone] and an unknown source each as they are, the unknown one flagged with its line."""
    phone = doctor(tmp_path, "keypad:\n  source: phone\nphone:\n  bind: 127.0.0.1\n  port: 0\n")
    assert "ok       private presses: phones, on a free port" in phone.stdout, phone.stdout
    assert "keys typed" not in phone.stdout
    both = doctor(tmp_path, f"keypad:\n  source: [fifo, phone]\n  fifo: {tmp_path / 'keys'}\n"
                            "phone:\n  bind: 127.0.0.1\n  port: 0\n")
    assert f"ok       private presses (fifo): named pipe {tmp_path / 'keys'}" in both.stdout, both.stdout
    assert "ok       private presses (phone): phones" in both.stdout
    assert "keys typed" not in both.stdout
    banana = doctor(tmp_path, "keypad:\n  source: banana\n")
    assert banana.returncode == 1
    assert (f"PROBLEM  private presses: {tmp_path / 'config.yaml'} line 2: keypad.source = 'banana' must be one "
            "of none, terminal, fifo, evdev, gpio, phone; using 'terminal'.") in banana.stdout, banana.stdout
    listed = doctor(tmp_path, "keypad:\n  source: [none, banana]\n")
    assert "keypad.source: 'banana' is not a keypad source" in listed.stdout
    closing = listed.stdout.splitlines()[-1]  # (a machine with no sound devices adds those, too)
    assert closing.startswith("To fix: ") and "correct the config lines named above" in closing
    assert "./start.sh" not in closing


def test_a_state_folder_under_proc_is_reported_truthfully(tmp_path: Path) -> None:
    result = doctor(tmp_path, "keypad:\n  source: none\n", env={"ASSISTANT_STATE_DIR": "/proc/omega-state"})
    assert ("PROBLEM  saved games: unfinished games cannot be saved: the state folder /proc/omega-state cannot "
            "be made: /proc takes no new folders (it is not a folder on a disk)") in result.stdout, result.stdout
    assert "part of its path is not a folder" not in result.stdout
    assert "set state_dir to a folder that can be written" in result.stdout.splitlines()[-1]
    assert not Path("/proc/omega-state").exists()


def test_the_voice_memory_line_says_whether_the_voice_is_cut(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut: in windows; not cut yet (a fresh cache folder): it will be; with the onnx package
    missing: a problem, and the closing line's fix is ./start.sh."""
    import importlib.util

    from assistant.config import Config
    from assistant.doctor import Doctor, voices
    from assistant.voice.synth import VoiceBank
    from assistant.voice.vocoder import PARTS_ENV, parts_dir

    VoiceBank(parts_dir=parts_dir(None)).load("")  # cut (or already cut) where the tests keep it
    assert voices(Doctor(Config.from_text("")))
    assert "ok       voice memory: the voice's decoder runs in windows" in capsys.readouterr().out
    monkeypatch.delenv(PARTS_ENV, raising=False)
    config = Config.from_text(f"voice:\n  cache_dir: {tmp_path / 'cache'}\n")
    assert voices(Doctor(config))
    assert "ok       voice memory: the voice is cut in two when first loaded" in capsys.readouterr().out
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnx" else real(name, *a))
    checked = Doctor(config)
    assert not voices(checked)
    assert "PROBLEM  voice memory: the onnx package is missing, so the voice runs whole" in capsys.readouterr().out
    assert checked.fixes == ["./start.sh installs the missing packages"]


def test_the_whisper_decoder_line_says_whether_it_runs_in_int8(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """With Whisper deciding what the first pass doubts: its decoder is loaded as hearing loads
    it, its int8 products checked for real in onnxruntime on this CPU; when they cannot run, a
    problem naming the cost, fixed by ./start.sh. PocketSphinx alone has no such line."""
    from assistant.config import Config
    from assistant.doctor import Doctor, hearing
    from assistant.hearing import whisper_decoder

    assert hearing(Doctor(Config.from_text("recognizer: hybrid\n")))
    assert "ok       Whisper decoder: Whisper's decoder runs in int8" in capsys.readouterr().out
    assert hearing(Doctor(Config.from_text("recognizer: pocketsphinx\n")))
    assert "Whisper decoder" not in capsys.readouterr().out

    class Refused:
        def __init__(self, *args: object) -> None:
            raise RuntimeError("Could not find an implementation for DynamicQuantizeMatMul")

    monkeypatch.setattr(whisper_decoder, "Int8Product", Refused)
    checked = Doctor(Config.from_text("recognizer: hybrid\n"))
    assert not hearing(checked)
    out = capsys.readouterr().out
    assert "PROBLEM  Whisper decoder: hearing takes about twice the CPU time here: onnxruntime's int8" in out
    assert "DynamicQuantizeMatMul" in out and "twice the CPU" in out
    assert checked.fixes == ["./start.sh installs the missing packages"]


def test_the_doctor_reports_every_setting_problem_play_reports_under_settings(tmp_path: Path) -> None:
    """Bad values of the box's, a game's and the keys' kinds, each one as play reports it, under
    the Settings heading (none under Tools)."""
    config = ("volume: 42\ngames:\n  omega_virus:\n    shields_seconds: -5\n    attack_shot: randm\n"
              "keypad:\n  source: none\nvoise:\n  pitch: 2\n")
    checked = doctor(tmp_path, config)
    path = tmp_path / "config.yaml"
    played = subprocess.run([sys.executable, "-m", "assistant", "--config", str(path), "play", "omega-virus",
                             "--text"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")})
    assert played.returncode == 0, played.stderr
    reported = [line.removeprefix("config: ") for line in played.stderr.splitlines() if line.startswith("config: ")]
    assert len(reported) == 4, played.stderr
    lines = checked.stdout.splitlines()
    settings = lines[lines.index("Settings") + 1:-1]
    assert [line.removeprefix("  PROBLEM  config: ") for line in settings] == reported, checked.stdout
    assert f"{path} line 1: volume = 42 must be at most 10; using 10." in reported
    assert (f"{path} line 8: 'voise' is not a setting (config.yaml and docs/hearing.md list the settings). "
            "It is ignored.") in reported
    assert checked.returncode == 1 and "correct the config lines named above" in lines[-1]
    tools = lines[lines.index("Tools") + 1:lines.index("Settings")]
    assert not any("config" in line for line in tools), checked.stdout


def test_the_doctor_says_when_the_settings_are_all_good(tmp_path: Path) -> None:
    checked = doctor(tmp_path, "volume: 7\nkeypad:\n  source: none\n")
    lines = checked.stdout.splitlines()
    assert lines[lines.index("Settings") + 1] == (f"  ok       config: {tmp_path / 'config.yaml'} (every key is a "
                                                  "setting, every value can be used)"), checked.stdout
