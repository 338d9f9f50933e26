"""What running a Piper voice's decoder in windows (assistant/voice/vocoder.py) saves and costs.

    .venv/bin/python -m bench.bench_vocoder [--repeats 3]

For sentences of 20 to 150 characters, said by the bundled voice run whole and cut in two:
the peak memory the sentence adds (VmHWM reset before it, in a fresh process with the
assistant's own malloc settings, as `assistant` sets them) and the CPU seconds it takes
(the median of ``--repeats``), and how long cutting the voice takes (once per voice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.voice.synth import bundled_voice, voice_id  # noqa: E402
from assistant.voice.vocoder import OVERLAP_FRAMES, WINDOW_FRAMES, load_split  # noqa: E402
from bench.results import Results  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TEXT = ("You have ninety seconds left, commandos; the station is mine, and every sector falls before me, "
        "one by one, until nothing is left of you at all.")
LENGTHS = (20, 60, 100, 150)

#: One process: the voice loaded (whole or in parts), warmed up, then each sentence said
#: ``repeats`` times; prints JSON: per length, the peak growth (MB) and CPU seconds of each time.
CHILD = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from assistant.memory import give_back_memory, limit_malloc_arenas, map_big_blocks
    limit_malloc_arenas(); map_big_blocks()  # as the assistant's command line sets them
    from assistant.voice.characters import CharacterSpec
    from assistant.voice.synth import VoiceBank
    def kib(key):
        return next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                    if line.startswith(key + ":"))
    parts, text, lengths, repeats = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
    bank = VoiceBank(threads=1, parts_dir=Path(parts) if parts else None)
    spec = CharacterSpec("narrator", "", 1.0, 0.667, 0.8, 1.0, 0, ())
    bank.synthesize(spec, "Ready.")
    out = {}
    for n in lengths:
        rows = []
        for _ in range(repeats):
            give_back_memory()
            Path("/proc/self/clear_refs").write_text("5")  # the peak from here on
            before, cpu = kib("VmRSS"), time.process_time()
            audio, rate = bank.synthesize(spec, text[:n])
            rows.append([(kib("VmHWM") - before) / 1024, time.process_time() - cpu, len(audio) / rate])
        out[n] = rows
    print(json.dumps({"whole_because": bank.load("").whole_because, "rows": out}))
""")


def child(parts: Path | None, repeats: int) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(parts or ""), TEXT, json.dumps(LENGTHS), str(repeats)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the measuring process failed:\n{done.stderr}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", default="bench_vocoder", help="bench/results/NAME.md ('' : none)")
    args = parser.parse_args(argv)
    results = Results(args.results or "unused", "Piper's decoder in windows: memory saved, CPU paid",
                      ["bench/bench_vocoder.py", *(sys.argv[1:] if argv is None else argv)])
    with results.capture():
        figures = run(args.repeats)
    if args.results:
        results.figures = figures
        results.write()
    return 0


def run(repeats: int) -> dict[str, object]:
    voice = bundled_voice()
    figures: dict[str, object] = {"window_frames": WINDOW_FRAMES, "overlap_frames": OVERLAP_FRAMES}
    with tempfile.TemporaryDirectory() as folder:
        start = time.monotonic()
        load_split(voice, voice_id(voice), Path(folder))
        cut = time.monotonic() - start
        print(f"cutting {voice.name} in two (once per voice, in a process of its own): {cut:.1f} s")
        figures["cut_seconds"] = round(cut, 2)
        ways = {"whole": child(None, repeats), "windows": child(Path(folder), repeats)}
    if ways["whole"]["whole_because"] is None or ways["windows"]["whole_because"] is not None:
        raise SystemExit(f"the voice did not run the two ways: {ways}")
    print(f"windows of {WINDOW_FRAMES} frames, {OVERLAP_FRAMES} of context each side; median of {repeats}, "
          "each in one process per way (the peak: VmHWM reset before the sentence)")
    print(f"{'characters':>10} {'speech s':>8} | {'whole: peak MB':>14} {'CPU s':>6} | {'windows: peak MB':>16} "
          f"{'CPU s':>6} | CPU x")
    table = []
    for n in LENGTHS:
        row: dict[str, float] = {"characters": n}
        for way, data in ways.items():
            rows = data["rows"][str(n)]  # type: ignore[index]
            row[f"{way}_peak_mb"] = round(statistics.median(r[0] for r in rows), 1)
            row[f"{way}_cpu_s"] = round(statistics.median(r[1] for r in rows), 3)
            row["speech_s"] = round(rows[0][2], 2)
        table.append(row)
        print(f"{n:>10} {row['speech_s']:>8.1f} | {row['whole_peak_mb']:>14.0f} {row['whole_cpu_s']:>6.2f} | "
              f"{row['windows_peak_mb']:>16.0f} {row['windows_cpu_s']:>6.2f} | "
              f"{row['windows_cpu_s'] / row['whole_cpu_s']:.2f}")
    figures["rows"] = table
    return figures


if __name__ == "__main__":
    sys.exit(main())
