"""Hands-free play and storage: a state folder that cannot be written never stops the game, and a
start that never got going leaves nothing to resume. Through the real CLI (``assistant play``)."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

import pytest

from assistant.journal import find_unfinished
from tests.audio_env import Recorder, SecondServer
from tests.live_helpers import (
    Lines,
    MicFeeder,
    piper_clip,
    play_command,
    private_folders,
    say_until,
    stop,
    wait_quiet,
)

CONFIG = ("recognizer: pocketsphinx\nkeypad: {source: none}\n"
          "live: {retry_seconds: 0.5}\n")
NOT_SAVED = "Progress is not being saved"


def _full_disk() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


@pytest.mark.audio
@pytest.mark.model
def test_live_play_goes_on_when_nothing_can_be_saved(tmp_path: Path) -> None:
    """A full disk (no file may grow at all, so neither the journal nor the voice cache can be
    written): hands-free play says once that progress is not saved, and goes on. The other ways
    a state folder fails (missing, read-only) reach the live loop through the same warning; they
    are played in text in tests/test_storage.py."""
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG + private_folders(tmp_path), encoding="utf-8")
    report = _play_live_without_saving(tmp_path, config, tmp_path / "state", full_disk=True)
    assert "larger than this system allows" in report, report


def _play_live_without_saving(tmp_path: Path, config: Path, state: Path, full_disk: bool) -> str:
    """Play the first move hands-free; what the assistant printed on stderr."""
    server = SecondServer(tmp_path / "pulse")
    server.start()
    feeder = MicFeeder(server.mic_fifo).start()
    proc = subprocess.Popen(
        play_command(config, "--seed", "3", "--new"), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**server.env(), "ASSISTANT_STATE_DIR": str(state)},
        preexec_fn=_full_disk if full_disk else None)  # stderr is a pipe, not a file: no limit on it
    out, errors = Lines(proc.stdout), Lines(proc.stderr)
    try:
        with server.use(), Recorder(f"{SecondServer.SINK}.monitor") as recorder:
            out.wait_for("BSAT1: Enter skill.")  # printed as its audio starts
            wait_quiet(recorder, len(recorder.samples()))  # the player answers once it is said, not over it
            say_until(feeder, piper_clip("skill zero"), out, "BSAT1: Red, enter secret code.")
        assert "BSAT1: Red, enter secret code." in out.lines, out.lines
    except AssertionError as failure:
        raise AssertionError(f"{failure}\nassistant's stderr:\n" + "\n".join(errors.lines)) from None
    finally:
        stop(proc)
        feeder.close()
        server.kill()
    errors.thread.join(timeout=10)
    report = "\n".join(errors.lines)
    assert "Traceback" not in report, report
    assert report.count(NOT_SAVED) == 1, report
    assert not state.is_dir() or not any(state.iterdir())  # no empty journal left
    return report


def test_a_live_start_with_no_speaker_leaves_nothing_to_resume(tmp_path: Path) -> None:
    """The speaker cannot be opened (no audio server at all): the player gives up; the next start
    must not offer to resume a game that never began."""
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG + private_folders(tmp_path), encoding="utf-8")
    state = tmp_path / "state"
    errors = tmp_path / "stderr.txt"
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(state), "PULSE_SERVER": f"unix:{tmp_path / 'no-server'}"}
    proc = subprocess.Popen(
        play_command(config, "--seed", "3", "--new"), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=errors.open("w"), text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while "speaker" not in errors.read_text():
            assert proc.poll() is None or time.monotonic() < deadline, errors.read_text()
            assert time.monotonic() < deadline, f"no speaker problem reported: {errors.read_text()}"
            time.sleep(0.2)
        time.sleep(1)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert "Traceback" not in errors.read_text(), errors.read_text()
    assert find_unfinished(state, "omega-virus") is None
