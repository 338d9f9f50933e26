"""A real speaker that is missing at start, then unplugged in the middle of an answer.

The "speaker" is a PulseAudio server of its own that the test kills and starts again. The
assistant's announcer runs in another process, as hands-free play makes it (keep trying,
rescanning the devices before each try). It must say plainly that the speaker is not
working, wait (the answer does not return, so the game clock stays stopped), and once
the speaker is back say the whole answer again, which is recorded and recognized.

Needs PulseAudio (the Debian packages test.sh installs); without it these tests FAIL.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.audio_env import Recorder, SecondServer
from tests.support.check import PhraseEar

pytestmark = [pytest.mark.audio, pytest.mark.model]

SHORT = "Shields are down."
LONG = "BSat1 systems failing. Teleport complete. Shields are up."

SPEAKER = """
import sys
from assistant.config import Config
from assistant.engine import Say
from assistant.voice.announcer import SpokenAnnouncer
from assistant.voice.playback import rescan_devices

announcer = SpokenAnnouncer.from_config(Config.load(sys.argv[1]), echo=True)
announcer.keep_trying(0.5, before_reopen=rescan_devices)
for line in sys.stdin:
    announcer.announce([Say("BSAT1", line.strip())])
    print("DONE", flush=True)
announcer.close()
"""


class Lines:
    """Lines of a stream, read in a thread, waited for by content."""

    def __init__(self, stream: object) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self._queue.put(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line with {text!r} within {timeout} s; saw {self.seen}") from None
            self.seen.append(line)
            if text in line:
                return line

    def drain(self) -> list[str]:
        while True:
            try:
                self.seen.append(self._queue.get_nowait())
            except queue.Empty:
                return self.seen


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SecondServer]:
    spare = SecondServer(tmp_path / "pulse")
    yield spare
    spare.kill()


def test_missing_then_unplugged_speaker_is_waited_for_and_the_answer_said_again(
        server: SecondServer, tmp_path: Path) -> None:
    ear = PhraseEar.for_phrases([SHORT, LONG, "Code 1 2."])
    config = tmp_path / "config.yaml"
    config.write_text(f"voice: {{cache_dir: {tmp_path / 'cache'}}}\n")
    process = subprocess.Popen([sys.executable, "-c", SPEAKER, str(config)], env=server.env(), text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=Path(__file__).resolve().parents[1])
    assert process.stdin is not None
    out, err = Lines(process.stdout), Lines(process.stderr)
    try:
        # 1. No speaker at all: a plain message, and the answer waits.
        process.stdin.write(SHORT + "\n")
        process.stdin.flush()
        message = err.wait_for("speaker is not working", 120)
        assert "plugged in" in message and "the game waits" in message
        # (not said meanwhile: it is heard in the recording made once the speaker is back)
        # The speaker appears: the devices are listed again, and the answer is heard.
        server.start()
        with server.use(), Recorder(f"{SecondServer.SINK}.monitor") as recorder:
            out.wait_for("DONE", 60)
        assert ear.hear_pcm(recorder.samples()) == "shields are down"
        err.wait_for("works again", 5)

        # 2. Unplugged in the middle of a long answer: all of it is said again afterwards.
        process.stdin.write(LONG + "\n")
        process.stdin.flush()
        out.wait_for("BSAT1: " + LONG, 60)  # printed as its sound starts
        time.sleep(0.4)
        server.kill()
        err.wait_for("speaker is not working", 30)  # (all of it is heard once the speaker is back)
        server.start()
        with server.use(), Recorder(f"{SecondServer.SINK}.monitor") as recorder:
            out.wait_for("DONE", 60)
        assert ear.hear_pcm(recorder.samples()) == "b sat one systems failing teleport complete shields are up"
        assert out.seen.count("BSAT1: " + LONG) == 1  # the line is printed once
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    assert process.returncode == 0, err.drain()
