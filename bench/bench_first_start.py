"""First start: from launching ``./start.sh`` (hands-free) to "Enter skill." sounding.

Runs the real ``start.sh`` as on a fresh clone after the package install: no set-up stamp (so
it runs ``assistant setup`` first, as a first start does), an empty voice cache, a state folder
of its own, on the PulseAudio virtual devices (a private null sink as the speaker, a private
pipe-source microphone fed silence). Nothing in the checkout is touched: the stamp, the
settings, the cache and the journals are in a temporary folder.

    .venv/bin/python bench/bench_first_start.py [--trials 3] [--warm]

``--warm`` measures later starts: one uncounted first start, then the trials, sharing its
voice cache and stamp.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.audio_env import RATE, Recorder, ensure_audio, private_mic, private_sink  # noqa: E402

LOUD = 1000  # int16: well above the null sink's silence
FIRST_LINE = "BSAT1: Enter skill."


def feed_silence(fifo: Path, stop: threading.Event) -> None:
    """A microphone in a quiet room: 20 ms of silence every 20 ms."""
    block = bytes(2 * RATE // 50)
    try:
        with open(fifo, "wb") as mic:
            while not stop.is_set():
                mic.write(block)
                mic.flush()
                time.sleep(0.02)
    except OSError:
        pass  # the microphone was unloaded


def one_start(folder: Path, timeout: float) -> dict[str, float]:
    """Seconds from launch to the first line printed and to the first sound heard."""
    config = folder / "config.yaml"
    config.write_text(f"voice:\n  cache_dir: {folder / 'cache'}\nkeypad:\n  source: none\n", encoding="utf-8")
    env = {**os.environ, "ASSISTANT_CONFIG": str(config), "ASSISTANT_STATE_DIR": str(folder / "state"),
           "ASSISTANT_SETUP_STAMP": str(folder / "setup-done")}
    with private_sink("bench") as sink, private_mic("benchmic") as fifo:
        env.update(PULSE_SINK=sink, PULSE_SOURCE=os.environ["PULSE_SOURCE"])
        stop = threading.Event()
        feeder = threading.Thread(target=feed_silence, args=(fifo, stop), daemon=True)
        feeder.start()
        with Recorder(f"{sink}.monitor") as recorder:
            recorded_from = time.monotonic()
            launched = time.monotonic()
            proc = subprocess.Popen([str(ROOT / "start.sh"), "omega-virus"], cwd=ROOT, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    text=True)
            printed: list[float] = []

            def read() -> None:
                assert proc.stdout is not None
                for line in proc.stdout:
                    if line.strip() == FIRST_LINE and not printed:
                        printed.append(time.monotonic() - launched)

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            heard = None
            try:
                while heard is None and time.monotonic() - launched < timeout:
                    time.sleep(0.05)
                    samples = recorder.samples()
                    loud = (abs(samples.astype("int32")) > LOUD).nonzero()[0]
                    if len(loud):
                        heard = loud[0] / RATE - (launched - recorded_from)
            finally:
                proc.terminate()
                proc.wait(timeout=30)
                stop.set()
                feeder.join(timeout=5)
    if heard is None:
        raise SystemExit(f"no sound within {timeout:.0f} s of launch")
    return {"printed": printed[0] if printed else float("nan"), "heard": heard,
            "setup_done": float((folder / "setup-done").exists())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--warm", action="store_true", help="keep the voice cache and stamp between trials")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    ensure_audio()
    results = []
    with tempfile.TemporaryDirectory(prefix="first-start-") as shared:
        if args.warm:
            one_start(Path(shared), args.timeout)  # the first start, not counted: it fills the cache
        for trial in range(args.trials):
            folder = Path(shared) if args.warm else Path(shared) / f"trial{trial}"
            folder.mkdir(exist_ok=True)
            result = one_start(folder, args.timeout)
            results.append(result)
            print(f"trial {trial + 1}: 'Enter skill.' printed {result['printed']:.2f} s, "
                  f"sounding {result['heard']:.2f} s after launch; set-up marked done: "
                  f"{'yes' if result['setup_done'] else 'no'}", flush=True)
    heard = [r["heard"] for r in results]
    print(f"launch to 'Enter skill.' sounding ({'warm' if args.warm else 'empty'} voice cache, "
          f"{len(heard)} trials): median {statistics.median(heard):.2f} s, max {max(heard):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
