"""Peak memory of hands-free play, as players run it, through the PulseAudio virtual devices.

    .venv/bin/python -m bench.bench_memory [--recognizer auto] [--game omega-virus]
        [--whisper-model faster-whisper-base] [--runs 3] [--voice-whole]

Starts `assistant play GAME` (the recognizer given; ``auto`` is the hybrid listener when
Whisper is installed), speaks a sign-on, a line of table talk (the hybrid takes nothing from
it, so every stage of its hearing that is on runs: the first pass, Whisper's free text and its
reading held to the grammar; the noise suppressor Whisper hears through
(``hearing.whisper.noise_suppression``), off by default, only when switched on: it says whether
that library was loaded), a question and a request
for the commands (a 130-character answer) into the virtual microphone (the Piper voice), and
reads the peak resident memory (VmHWM in /proc) of the assistant and of the processes it
started (the microphone's own process) while the game runs: the sum of their peaks (VmHWM;
shared libraries counted in each), and the highest sum of their Pss seen (shared pages split
between them). The peak falls on a short burst (Piper saying a sentence, Whisper's encoder, on
top of whatever the rest hold then), so it moves by tens of MB between runs of the same code:
the steps are played ``--runs`` times, each in a new process, and every run is reported.
Each run has a fresh phrase cache, so every line is synthesized as a game's live lines are
(the voice's parts, assistant/voice/vocoder.py, are cut once for all the runs).
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.hearing.whisper_engine import DEFAULT_WHISPER_MODEL, KNOWN_MODELS  # noqa: E402
from assistant.voice.vocoder import PARTS_ENV  # noqa: E402
from bench.results import Results  # noqa: E402
from tests.audio_env import RATE, Recorder, ensure_audio, private_mic, private_sink  # noqa: E402
from tests.test_live_e2e import Lines, MicFeeder, piper_clip  # noqa: E402

#: What is said and the start of the answer awaited (None: table talk, no answer: the hybrid
#: takes nothing from it, so every stage that is on hears it).
STEPS: list[tuple[str, str | None]] = [
    ("skill zero", "BSAT1: Red, enter secret code."), ("code one two", "BSAT1: Blue, enter secret code."),
    ("skip", "BSAT1: Green, enter secret code."), ("skip", "BSAT1: Yellow, enter secret code."),
    ("skip", "VIRUS: "), ("I think we should order pizza after this game", None),
    ("how much time is left", "VIRUS: "),
    # a long answer (130 characters, as long as "Say again? You can say: ..." after a miss): Piper's
    # working memory grows with the sentence it says unless its decoder runs in windows
    ("what can I say", "BSAT1: You can say")]
#: times a step is said before it is given up (a misheard command is said again)
TRIES = 3
#: The noise suppressor's library, loaded only when Whisper hears through it (hearing.whisper.noise_suppression;
#: assistant/hearing/audio.py)
SUPPRESSOR_LIBRARY = "webrtc_noise_gain"


def mapped(pid: int, name: str) -> bool:
    """Whether a file whose path holds ``name`` is mapped into process ``pid`` now."""
    try:
        return name in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def proc_kib(pid: int, file: str, key: str) -> int:
    """A size in KiB from /proc/PID/FILE, on the line that starts ``key:``."""
    for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {key} in /proc/{pid}/{file}")


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` now (read from every /proc/N/stat)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, ...
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


@dataclass
class Peaks:
    """Memory of the assistant and the processes it has running, read now and then: the
    highest sum of their peaks (VmHWM, the kernel's own peak of each; shared libraries
    counted in each), the parts of that sum, and the highest sum of their proportional set
    sizes (Pss: shared pages split between the processes that share them; read each time,
    so a peak between two readings can be missed). Only processes running at a reading
    count in it: a microphone process that was replaced is not added to its successor."""

    rss: int = 0
    parts: tuple[int, ...] = ()
    pss: int = 0
    children_seen: int = 0
    answered: int = 0  # the steps that got their answer
    suppressor: bool = False  # the noise suppressor's library was seen loaded in the assistant

    def read(self, pid: int) -> None:
        self.suppressor = self.suppressor or mapped(pid, SUPPRESSOR_LIBRARY)
        rss: list[int] = []
        pss = 0
        for one in [pid, *children(pid)]:
            try:
                rss.append(proc_kib(one, "status", "VmHWM"))
                pss += proc_kib(one, "smaps_rollup", "Pss")
            except (OSError, RuntimeError):
                continue  # ended meanwhile
        self.children_seen = max(self.children_seen, len(rss) - 1)
        if sum(rss) > self.rss:
            self.rss, self.parts = sum(rss), tuple(rss)
        self.pss = max(self.pss, pss)


def printed(out: Lines, start: str, since: int, timeout: float) -> bool:
    """Whether a line starting ``start`` is printed (after line ``since``) within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(line.startswith(start) for line in out.lines[since:]):
            return True
        time.sleep(0.05)
    return False


def settle(recorder: Recorder, since: int, answered: bool, quiet: float = 0.8, timeout: float = 60.0) -> None:
    """Until the speaker, having said something after sample ``since`` (``answered``: a line was
    printed, its audio follows), has been silent for ``quiet`` s; then a player's pause. The
    assistant listens only when it is not talking."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        after = np.abs(recorder.samples()[since:].astype(np.int32))
        loud = np.nonzero(after > 1000)[0]
        if len(loud) or not answered:
            if len(after) - (loud[-1] + 1 if len(loud) else 0) > RATE * quiet:
                break
        time.sleep(0.1)
    time.sleep(1.0)


def measure(recognizer: str, game: str, whisper_model: str = DEFAULT_WHISPER_MODEL,
            voice_whole: bool = False, parts: Path | None = None) -> tuple[int, Peaks, list[str]]:
    """One run: ``parts``, the folder the voice's parts are kept in between runs (None: the
    run's own, cut again)."""
    ensure_audio()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.yaml"
        # a fresh phrase cache: every line is synthesized, as a game's live lines are (rather than
        # read from whatever an earlier run left in the project's voices/cache)
        config.write_text(f"recognizer: {recognizer}\nkeypad:\n  source: none\nvoice:\n  render_at_start: false\n"
                          f"  cache_dir: {Path(tmp) / 'voices'}\nhearing:\n  whisper:\n    model: {whisper_model}\n",
                          encoding="utf-8")
        errors = (Path(tmp) / "stderr.txt").open("w")
        with (errors, private_sink("memory") as sink, private_mic("memory") as mic,
              Recorder(f"{sink}.monitor") as recorder):
            feeder = MicFeeder(mic).start()
            proc = subprocess.Popen([sys.executable, "-m", "assistant", "--config", str(config), "play", game,
                                     "--seed", "1", "--new"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=errors, text=True,
                                    env={**os.environ, "ASSISTANT_STATE_DIR": str(Path(tmp) / "state"),
                                         # a file where the voice's parts would go: it cannot be cut, runs whole
                                         **({PARTS_ENV: str(config)} if voice_whole else
                                            {PARTS_ENV: str(parts)} if parts is not None else {})})
            out = Lines(proc.stdout)
            held = Peaks()
            done = threading.Event()

            def watch() -> None:
                while not done.is_set():
                    held.read(proc.pid)
                    time.sleep(0.1)

            watcher = threading.Thread(target=watch, name="memory-watch", daemon=True)
            try:
                mark = len(recorder.samples())
                try:
                    out.wait_for("BSAT1: Enter skill.", timeout=120)
                except AssertionError:
                    errors.flush()
                    raise AssertionError(f"the game did not start; its stderr:\n"
                                         f"{(Path(tmp) / 'stderr.txt').read_text()}") from None
                watcher.start()
                settle(recorder, mark, answered=True)  # while it talks, the microphone is not listened to
                for text, answer in STEPS:
                    clip = piper_clip(text)
                    if answer is None:  # table talk: nothing is answered; every stage hears it
                        feeder.say(clip)
                        time.sleep(8.0)
                        continue
                    for _ in range(TRIES):  # a misheard command is said again, as a player would
                        seen, mark = len(out.lines), len(recorder.samples())
                        feeder.say(clip)
                        heard = printed(out, answer, seen, timeout=20.0)
                        settle(recorder, mark, heard)
                        if heard:
                            held.answered += 1
                            break
            finally:
                done.set()
                if watcher.is_alive():
                    watcher.join(timeout=5)
                proc.terminate()
                proc.wait(timeout=20)
                feeder.close()
            return proc.pid, held, out.lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recognizer", default="auto")
    parser.add_argument("--game", default="omega-virus")
    parser.add_argument("--whisper-model", default=DEFAULT_WHISPER_MODEL, choices=list(KNOWN_MODELS))
    parser.add_argument("--runs", type=int, default=3,
                        help="play the steps this many times, each in a new process: the peak moves by tens of "
                             "MB between runs of the same code, so each run is given, and the aim is judged on the "
                             "highest")
    parser.add_argument("--voice-whole", action="store_true",
                        help="run the Piper voice whole, as before its decoder ran in windows "
                             "(assistant/voice/vocoder.py): its memory grows with the sentence")
    parser.add_argument("--results", default="bench_memory",
                        help="write bench/results/NAME.md ('' : none)")
    args = parser.parse_args(argv)
    results = Results(args.results or "unused", "Peak memory of hands-free play",
                      ["bench/bench_memory.py", *(sys.argv[1:] if argv is None else argv)])
    with results.capture():
        code = _main(args, results)
    if args.results and code == 0:
        results.write()
    return code


def _main(args: argparse.Namespace, results: Results) -> int:
    if args.runs < 1:
        print("--runs must be at least 1", file=sys.stderr)
        return 2
    runs: list[Peaks] = []
    with tempfile.TemporaryDirectory(prefix="voice-parts-") as parts:  # the voice is cut once (its own process)
        for run in range(args.runs):
            _, held, lines = measure(args.recognizer, args.game, args.whisper_model, args.voice_whole, Path(parts))
            if held.children_seen == 0:
                print("no microphone process was seen: the figure would leave it out", file=sys.stderr)
                return 1
            shares = " + ".join(f"{kib / 1024:.0f}" for kib in held.parts)
            print(f"run {run + 1} of {args.runs}: assistant play {args.game} (recognizer: {args.recognizer}, Whisper "
                  f"{args.whisper_model}{'; the voice run whole' if args.voice_whole else ''}): peak resident memory "
                  f"{held.rss / 1024:.0f} MB ({shares} MB: the assistant, then its microphone process); highest "
                  f"Pss seen, shared pages counted once: {held.pss / 1024:.0f} MB")
            asked = sum(answer is not None for _, answer in STEPS)
            print(f"  ({held.answered} of {asked} steps answered, each said up to {TRIES} times; {len(lines)} lines "
                  f"said; last: {lines[-1] if lines else '-'})")
            runs.append(held)
    peaks = sorted(held.rss / 1024 for held in runs)
    pss = sorted(held.pss / 1024 for held in runs)
    highest = max(runs, key=lambda held: held.rss)
    print(f"peak resident memory over {len(runs)} runs: median {statistics.median(peaks):.0f} MB, highest "
          f"{peaks[-1]:.0f} MB, lowest {peaks[0]:.0f} MB; Pss median {statistics.median(pss):.0f} MB, highest "
          f"{pss[-1]:.0f} MB")
    results.figures = {"recognizer": args.recognizer, "game": args.game, "whisper_model": args.whisper_model,
                       "voice_whole": args.voice_whole, "steps_answered_each": [held.answered for held in runs],
                       "steps_asked": sum(answer is not None for _, answer in STEPS),
                       "runs": len(runs), "peak_rss_mb": round(peaks[-1], 1),
                       "median_peak_rss_mb": round(statistics.median(peaks), 1),
                       "peak_rss_mb_each": [round(held.rss / 1024, 1) for held in runs],
                       "parts_mb": [round(k / 1024, 1) for k in highest.parts],
                       "peak_pss_mb": round(pss[-1], 1), "median_peak_pss_mb": round(statistics.median(pss), 1),
                       "suppressor_loaded": any(held.suppressor for held in runs), "aim_mb": 400}
    print(f"  aim (issue 31): at most 400 MB: {'met' if peaks[-1] <= 400 else 'NOT met'} "
          f"(the highest run's sum of peaks, the larger figure)")
    if args.recognizer in ("auto", "hybrid"):
        loaded = any(held.suppressor for held in runs)
        print(f"  the noise suppressor was {'' if loaded else 'not '}loaded "
              "(it is only when hearing.whisper.noise_suppression is on; off by default)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
