"""Hands-free play survives its devices going away: the microphone and the speaker (a
PulseAudio server of their own, killed mid-game and started again) are reported, retried,
and the game goes on where it was, with nothing lost and no game time spent meanwhile; after a kill -9
the next start resumes the game by itself.

Needs PulseAudio (the Debian packages test.sh installs); without it these tests FAIL.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

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

pytestmark = [pytest.mark.audio, pytest.mark.model]


def test_devices_unplugged_then_the_plug_pulled(tmp_path: Path) -> None:
    """The microphone and the speaker go away mid-game and come back: reported, retried, and the
    game goes on where it was. Then the plug is pulled (kill -9): hands-free, nobody reads a
    screen, so the next start goes on with the same game by itself."""
    server = SecondServer(tmp_path / "pulse")
    config = tmp_path / "config.yaml"
    config.write_text(private_folders(tmp_path) + "recognizer: pocketsphinx\nkeypad: {source: none}\n"
                      "live: {retry_seconds: 0.5}\n", encoding="utf-8")
    skill = piper_clip("skill zero")
    errors = tmp_path / "stderr.txt"
    env = {**server.env(), "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    server.start()
    feeder = MicFeeder(server.mic_fifo).start()
    proc = subprocess.Popen(play_command(config, "--seed", "3", "--new"), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=errors.open("w"), text=True, env=env)
    second: subprocess.Popen[str] | None = None
    out = Lines(proc.stdout)
    try:
        out.wait_for("BSAT1: Enter skill.")
        time.sleep(2)  # it listens
        # Both devices go away (the audio server dies), then come back.
        feeder.close()
        server.kill()
        deadline = time.monotonic() + 30
        while "microphone:" not in errors.read_text():
            assert time.monotonic() < deadline, "the lost microphone was never reported"
            time.sleep(0.2)
        out.wait_for("BSAT1: I cannot hear you. Check the microphone; the game waits.")
        # It said so (into a dead speaker, so that waits too), and took nothing as input.
        assert out.lines == ["BSAT1: Enter skill.", "BSAT1: I cannot hear you. Check the microphone; the game waits."]
        server.start()
        feeder = MicFeeder(server.mic_fifo).start()
        with server.use(), Recorder(f"{SecondServer.SINK}.monitor") as recorder:
            out.wait_for("BSAT1: I can hear you again.", timeout=40)
            wait_quiet(recorder, 0)
            # The game goes on where it was: still the skill question.
            say_until(feeder, skill, out, "BSAT1: Red, enter secret code.")
        report = errors.read_text()
        assert "I will keep trying; the game waits." in report
        assert "the speaker is not working" in report and "the speaker works again" in report
        assert "microphone: working again." in report
        assert out.lines.count("BSAT1: Enter skill.") == 1
        proc.kill()  # the plug is pulled
        proc.wait(timeout=10)
        second = subprocess.Popen(play_command(config), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        again = Lines(second.stdout)
        again.wait_for("BSAT1: Game resumed. Say new game to start over.")
        again.wait_for("BSAT1: Red, enter secret code.", timeout=20)
        assert "BSAT1: Enter skill." not in again.lines
    except AssertionError as failure:
        raise AssertionError(f"{failure}\nassistant's stderr:\n{errors.read_text()}") from None
    finally:
        for process in (proc, second):
            if process is not None and process.poll() is None:
                stop(process)
        feeder.close()
        server.kill()
