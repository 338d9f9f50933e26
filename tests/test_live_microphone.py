"""The microphone runs in a process of its own (assistant.live.mic_worker), so a stream on a
dead sound server, which can hang PortAudio for ever, is killed instead of waited on.

Real PulseAudio and the real worker where a device is needed; a stand-in child only for what
no device does on demand (printing without end, never answering).
"""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from assistant.live.microphone import STDERR_LINES, Microphone, MicrophoneError
from tests.audio_env import RATE, private_mic

AUDIO = pytest.mark.audio


def _gone(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` ended within ``seconds`` (an orphan that ended stays a zombie
    until init reaps it: ended all the same)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return True
        if stat[stat.rindex(")") + 2] in "ZX":
            return True
        time.sleep(0.05)
    return False


@AUDIO
def test_blocks_come_from_the_microphone_process_in_order_and_close_ends_it() -> None:
    with private_mic("micproc") as fifo:
        mic = Microphone("", 0.1)
        mic.open()
        try:
            assert mic.rate == RATE and mic.alive()
            pid = mic._process.pid if mic._process else 0
            tone = (8000 * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE)).astype("<i2")
            with open(fifo, "wb") as out:  # a second of silence, then a second of tone
                out.write(np.zeros(RATE, dtype="<i2").tobytes() + tone.tobytes())
            got: list[np.ndarray] = []
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                block = mic.read(timeout=0.2)
                if block is not None:
                    assert abs(block.captured_at - time.monotonic()) < 5  # the same clock as ours
                    got.append(np.frombuffer(block.audio, dtype=np.int16))
                    if np.abs(got[-1]).max() > 4000:
                        break
            assert got and all(len(b) == RATE // 10 for b in got)
            assert np.abs(got[-1]).max() > 4000, "the tone never came through"
        finally:
            mic.close()
        assert not mic.alive()
        assert _gone(pid, 2), "the microphone process outlived close()"


@AUDIO
def test_the_microphone_process_ends_with_the_assistant(tmp_path: Path) -> None:
    """kill -9 of the assistant must not leave its microphone process holding the device."""
    script = textwrap.dedent("""
        import sys, time
        from assistant.live.microphone import Microphone
        mic = Microphone("", 0.1, stall_seconds=60)  # nothing is fed: only the parent's end may end it
        mic.open()
        print(mic._process.pid, flush=True)
        time.sleep(60)
    """)
    with private_mic("micorphan"):
        parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                                  cwd=Path(__file__).parent.parent)
        try:
            assert parent.stdout is not None
            child = int(parent.stdout.readline())
            assert not _gone(child, 0.5)
            parent.kill()
            parent.wait(timeout=10)
            assert _gone(child, 1.5), "the microphone process was left running"
        finally:
            if parent.poll() is None:
                parent.kill()
                parent.wait()


@AUDIO
def test_no_such_microphone_is_a_clear_error_and_leaves_no_process() -> None:
    with private_mic("micnone"):
        mic = Microphone("no such device anywhere", 0.1)
        with pytest.raises(MicrophoneError, match="No microphone named like 'no such device anywhere'.*Found"):
            mic.open()
        assert mic._process is None and not mic.alive()


def _stand_in(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / f"child{len(list(tmp_path.glob('child*.py')))}.py"
    script.write_text(textwrap.dedent(body), encoding="utf-8")
    return [sys.executable, str(script)]


def test_a_child_that_prints_without_end_is_told_in_a_few_lines_and_killed(tmp_path: Path) -> None:
    """As PortAudio does on a dead sound server: an error line per turn, no audio, for ever."""
    command = _stand_in(tmp_path, """
        import json, struct, sys, time
        out = sys.stdout.buffer
        out.write((json.dumps({"name": "stand-in", "rate": 16000}) + "\\n").encode())
        out.write(struct.pack("<dI", time.monotonic(), 3200) + bytes(3200)); out.flush()  # it worked
        time.sleep(0.3)
        while True:
            sys.stderr.write("Expression 'self->capture.ready || self->playback.ready' failed\\n")
    """)
    said = io.StringIO()
    mic = Microphone("", 0.1, stderr=said, command=command)
    mic.open()
    assert mic.read(timeout=5) is not None
    deadline = time.monotonic() + 10  # until the flood was cut short: what is told of it is told
    while len(said.getvalue().splitlines()) < STDERR_LINES and time.monotonic() < deadline:
        time.sleep(0.02)
    assert mic.read(timeout=0.1) is None  # (the child floods on meanwhile: counted, not told)
    started = time.monotonic()
    mic.close()
    assert time.monotonic() - started < 3
    lines = said.getvalue().splitlines()
    assert 12 <= len(lines) <= 13, lines[:3]
    assert lines[-1].startswith("microphone: ") and "more lines from the sound library" in lines[-1]
    # Tries that fail add nothing (they fail alike, every few seconds) until one works again.
    mic.command = _stand_in(tmp_path, """
        import json, sys
        sys.stderr.write("ALSA lib pulse.c:242:(pulse_connect) PulseAudio: Unable to connect\\n" * 5)
        sys.stderr.flush()
        sys.stdout.write(json.dumps({"error": "The microphone 'default' would not open."}) + "\\n")
    """)
    for _ in range(2):
        with pytest.raises(MicrophoneError, match="would not open"):
            mic.open()
    assert len(said.getvalue().splitlines()) == len(lines)
    mic.command = command
    mic.open()
    time.sleep(1.0)
    mic.close()
    assert len(said.getvalue().splitlines()) == 2 * len(lines)


def test_a_child_that_never_answers_is_given_up_with_what_to_do(tmp_path: Path) -> None:
    command = _stand_in(tmp_path, """
        import time
        time.sleep(60)
    """)
    mic = Microphone("", 0.1, stderr=io.StringIO(), command=command, open_timeout=1.0)
    started = time.monotonic()
    with pytest.raises(MicrophoneError, match="took too long.*doctor"):
        mic.open()
    assert time.monotonic() - started < 5
    assert mic._process is None


def test_a_child_that_ends_is_no_longer_alive(tmp_path: Path) -> None:
    command = _stand_in(tmp_path, """
        import json, struct, sys, time
        out = sys.stdout.buffer
        out.write((json.dumps({"name": "stand-in", "rate": 16000}) + "\\n").encode())
        out.write(struct.pack("<dI", time.monotonic(), 3200) + bytes(3200)); out.flush()
        sys.exit(3)
    """)
    mic = Microphone("", 0.1, stderr=io.StringIO(), command=command)
    mic.open()
    block = mic.read(timeout=5)
    assert block is not None and len(block.audio) == 3200
    deadline = time.monotonic() + 5
    while mic.alive():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    mic.close()


def test_a_microphone_process_that_cannot_start_is_a_microphone_problem(tmp_path: Path) -> None:
    """The loop says "the game waits" for a MicrophoneError; anything else would end the game."""
    mic = Microphone("", 0.1, stderr=io.StringIO(), command=[str(tmp_path / "no-such-program")])
    with pytest.raises(MicrophoneError, match="could not be started.*start.sh"):
        mic.open()
    assert mic._process is None and not mic.alive()


def test_a_garbled_frame_ends_the_stream_instead_of_reading_gigabytes(tmp_path: Path) -> None:
    command = _stand_in(tmp_path, """
        import json, struct, sys, time
        out = sys.stdout.buffer
        out.write((json.dumps({"name": "stand-in", "rate": 16000}) + "\\n").encode())
        out.write(struct.pack("<dI", time.monotonic(), 4_000_000_000)); out.flush()
        time.sleep(60)
    """)
    said = io.StringIO()
    mic = Microphone("", 0.1, stderr=said, command=command)
    mic.open()
    deadline = time.monotonic() + 5
    while mic.alive():
        assert time.monotonic() < deadline, "a garbled frame was waited on"
        time.sleep(0.05)
    mic.close()
    assert "sent a frame of 4000000000 bytes" in said.getvalue()
