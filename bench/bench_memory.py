"""Peak memory of hands-free play, as players run it, through the PulseAudio virtual devices.

    .venv/bin/python -m bench.bench_memory [--recognizer auto] [--game omega-virus]

Starts `assistant play GAME` (the recognizer given; ``auto`` is the hybrid listener when
Whisper is installed), speaks a sign-on and a move into the virtual microphone (the Piper
voice), and reads the peak resident memory (VmHWM in /proc) of the assistant and of the
processes it started (the microphone's own process) while the game runs. The figure is
their sum: at most what they held at once, and at least their shared pages counted twice.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.audio_env import ensure_audio, private_mic, private_sink  # noqa: E402
from tests.test_live_e2e import Lines, MicFeeder, piper_clip  # noqa: E402

STEPS = [("skill zero", "BSAT1: Red, enter secret code."), ("code one two", "BSAT1: Blue, enter secret code."),
         ("skip", "BSAT1: Green, enter secret code."), ("skip", "BSAT1: Yellow, enter secret code."),
         ("skip", "VIRUS: "), ("how much time is left", "VIRUS: ")]


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM")


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def peaks(pid: int, seen: dict[int, int]) -> dict[int, int]:
    """The peak of ``pid`` and of each child it has now, kept in ``seen`` (a child that ended
    keeps the peak last read)."""
    for one in [pid, *children(pid)]:
        try:
            seen[one] = max(seen.get(one, 0), peak_kib(one))
        except (OSError, RuntimeError):
            continue
    return seen


def measure(recognizer: str, game: str) -> tuple[int, dict[int, int], list[str]]:
    ensure_audio()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.yaml"
        config.write_text(f"recognizer: {recognizer}\nkeypad:\n  source: none\nvoice:\n  render_at_start: false\n",
                          encoding="utf-8")
        errors = (Path(tmp) / "stderr.txt").open("w")
        with errors, private_sink("memory"), private_mic("memory") as mic:
            feeder = MicFeeder(mic)
            feeder.thread.start()
            proc = subprocess.Popen([sys.executable, "-m", "assistant", "--config", str(config), "play", game,
                                     "--seed", "1", "--new"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=errors, text=True,
                                    env={**os.environ, "ASSISTANT_STATE_DIR": str(Path(tmp) / "state")})
            out = Lines(proc.stdout)
            seen: dict[int, int] = {}
            try:
                try:
                    out.wait_for("BSAT1: Enter skill.", timeout=120)
                except AssertionError:
                    errors.flush()
                    raise AssertionError(f"the game did not start; its stderr:\n"
                                         f"{(Path(tmp) / 'stderr.txt').read_text()}") from None
                time.sleep(3.0)  # while it talks, the microphone is not listened to
                for text, answer in STEPS:
                    seen = len(out.lines)
                    feeder.say(piper_clip(text))
                    deadline = time.monotonic() + 15
                    while time.monotonic() < deadline and not any(
                            line.startswith(answer) for line in out.lines[seen:]):
                        peaks(proc.pid, seen)
                        time.sleep(0.1)
                    time.sleep(4.0)
                peaks(proc.pid, seen)
            finally:
                proc.terminate()
                proc.wait(timeout=20)
                feeder.stop.set()
            return proc.pid, seen, out.lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recognizer", default="auto")
    parser.add_argument("--game", default="omega-virus")
    args = parser.parse_args(argv)
    main_pid, seen, lines = measure(args.recognizer, args.game)
    others = " + ".join(f"{kib / 1024:.0f}" for pid, kib in seen.items() if pid != main_pid)
    print(f"assistant play {args.game} (recognizer: {args.recognizer}): peak resident memory "
          f"{sum(seen.values()) / 1024:.0f} MB ({seen[main_pid] / 1024:.0f} MB the assistant"
          f"{' + ' + others + ' MB its microphone process' if others else ''})")
    print(f"  ({len(lines)} lines said; last: {lines[-1] if lines else '-'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
