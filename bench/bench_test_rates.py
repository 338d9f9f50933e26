"""The rates the recognition tests hold, measured on more clips: the same ears, the same
settings and the same way of counting as each test, on the held-out voices
(tests/support/spoken.py ``HELD_OUT_SPEAKERS``: none of them is a test's, nor was any setting
chosen on them), so that each test's bound can cite a measured rate and the margin it leaves.

  .venv/bin/python bench/bench_test_rates.py                # all, about 10 minutes on 2 cores
  .venv/bin/python bench/bench_test_rates.py --voices 2 --no-base --no-write   # a quick look

What is measured (a right command is the one said; a wrong command is another one taken):
  whisper tiny.en alone, the hybrid with it, and PocketSphinx alone as its first pass
  (tests/test_hearing_whisper.py): the move moment's commands of those tests and three more of
  the move moment, each said by every held-out voice;
  the same with Whisper base (tests/test_hearing_whisper_base.py), unless --no-base;
  PocketSphinx with the whole game listened for, the 14 commands of
  tests/test_hearing_pocketsphinx.py, and the chatter of that file while a move is awaited.
Results: bench/results/bench_test_rates.md (its figures as JSON at the end).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.engine import Command  # noqa: E402
from assistant.hearing import HearingSettings, open_ear  # noqa: E402
from assistant.hearing.events import Transcript  # noqa: E402
from assistant.hearing.recognizer import Ear  # noqa: E402
from assistant.hearing.settings import WhisperSettings  # noqa: E402
from assistant.hearing.whisper_engine import BASE_MODEL  # noqa: E402
from bench.results import Results  # noqa: E402
from tests.support.spoken import HELD_OUT_SPEAKERS, ClipMaker, Speaker  # noqa: E402

#: Three more commands of the move moment, beside the tests' five.
MORE = ("explore room two zero one", "attack the red commando", "what do i have")


def taken(ear: Ear, clip: object) -> Command | None:
    heard = ear.hear(clip)  # type: ignore[arg-type]
    return heard.command if isinstance(heard, Transcript) else None


def count(name: str, ears: dict[str, Ear], clips: Sequence[tuple[str, str, object, Command | None]],
          results: Results) -> None:
    """Each ear on each clip: right (the command said), wrong (another command taken), and
    the wrong ones listed; printed, and kept as figures under ``name``."""
    for label, ear in ears.items():
        start = time.monotonic()
        right = 0
        wrong: list[str] = []
        for voice, text, clip, expected in clips:
            got = taken(ear, clip)
            if expected is not None and got == expected:
                right += 1
            elif got is not None:
                wrong.append(f"{voice}: {text!r} taken as {got.intent} {dict(got.slots)}")
        total = len(clips)
        seconds = time.monotonic() - start
        said = f"right {right} of {total} ({100 * right / total:.0f}%), " if any(c[3] for c in clips) else ""
        print(f"{name} / {label}: {said}wrong commands {len(wrong)} of {total} ({100 * len(wrong) / total:.1f}%), "
              f"{seconds:.0f} s")
        for line in wrong:
            print(f"    wrong: {line}")
        results.figures.setdefault(name, {})[label] = {"clips": total, "right": right, "wrong": len(wrong),
                                                       "wrong_taken": wrong, "seconds": round(seconds, 1)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--voices", type=int, default=len(HELD_OUT_SPEAKERS),
                        help="how many of the held-out voices (default: all %(default)s)")
    parser.add_argument("--no-base", action="store_true", help="leave out Whisper base")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "bench-clips",
                        help="clip cache folder")
    parser.add_argument("--no-write", action="store_true", help="print only, write no results file")
    args = parser.parse_args(argv)

    from tests.test_hearing_pocketsphinx import CHATTER, move_intents
    from tests.test_hearing_pocketsphinx import COMMANDS as SPHINX_COMMANDS
    from tests.test_hearing_whisper import COMMANDS, MOVE, OMEGA

    voices: tuple[Speaker, ...] = HELD_OUT_SPEAKERS[:args.voices]
    maker = ClipMaker(args.cache)
    results = Results("bench_test_rates", "The recognition tests' rates on the held-out voices",
                      ["bench/bench_test_rates.py", *(argv if argv is not None else sys.argv[1:])])
    results.notes.append(f"voices: {', '.join(v.label for v in voices)}")
    with results.capture():
        moves = [(text, command) for text, command in COMMANDS] + [(text, OMEGA.match(text)) for text in MORE]
        move_clips = [(v.label, text, maker.say(text, v), command) for v in voices for text, command in moves]
        print(f"move commands: {len(moves)} ({', '.join(t for t, _ in moves)}) x {len(voices)} voices")
        tiny = HearingSettings(recognizer="hybrid")
        count("moves (test_hearing_whisper)", {
            "whisper tiny.en alone": open_ear(HearingSettings(recognizer="whisper"), OMEGA, MOVE, engine="whisper",
                                              fallback=False),
            "hybrid, tiny.en": open_ear(tiny, OMEGA, MOVE, engine="hybrid", fallback=False),
            "pocketsphinx alone (the hybrid's first pass)": open_ear(tiny, OMEGA, MOVE, engine="pocketsphinx",
                                                                     fallback=False),
        }, move_clips, results)
        if not args.no_base:
            with tempfile.TemporaryDirectory() as models:
                base = HearingSettings(recognizer="hybrid", models_dir=Path(models),
                                       whisper=WhisperSettings(model=BASE_MODEL))
                count("moves (test_hearing_whisper_base)", {
                    "whisper base alone": open_ear(HearingSettings(recognizer="whisper", models_dir=Path(models),
                                                                   whisper=base.whisper), OMEGA, MOVE,
                                                   engine="whisper", fallback=False),
                    "hybrid, base": open_ear(base, OMEGA, MOVE, engine="hybrid", fallback=False),
                }, move_clips, results)
        sphinx_clips = [(v.label, text, maker.say(text, v), OMEGA.match(text)) for v in voices
                        for text in SPHINX_COMMANDS]
        count("the game's commands (test_hearing_pocketsphinx)",
              {"pocketsphinx": open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA)}, sphinx_clips, results)
        chatter = [(v.label, text, maker.say(text, v), None) for v in voices for text in CHATTER]
        count("chatter while a move is awaited (test_hearing_pocketsphinx)",
              {"pocketsphinx": open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, move_intents())},
              chatter, results)
    if not args.no_write:
        results.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
