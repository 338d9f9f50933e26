"""Whisper's prompt, two ways: what is spotted in its transcripts of the same clips.

    .venv/bin/python bench/prompt_study.py [--clips 300] [--voices tuning] [--cache /tmp/bench-clips]

Hears the first ``--clips`` of veto_study's shuffled half-size clips of one voice set (every
condition) with Whisper alone, once per prompt style, on the same encoding of the audio:

- ``list``: the help sentences of what may be said now, joined by commas (what the assistant
  uses: ``recognizer.prompt_for``);
- ``sentences``: the same, each as a sentence of its own ("Explore one zero zero. Pass."): the
  hybrid's last try (``recognizer.prompt_as_sentences``).

For each it prints commands right and wrong (spotted, as ``Ear.spot`` does) and table talk
taken. A study for choosing, on the tuning voices: it changes nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.games import GAMES, game_module  # noqa: E402
from assistant.hearing import HearingSettings, Transcript, open_ear, open_transcriber  # noqa: E402
from assistant.hearing.recognizer import prompt_as_sentences, prompt_for  # noqa: E402
from bench.bench_accuracy import CONDITIONS, grammar_for, listening_moments, make_clip  # noqa: E402
from bench.veto_study import study_clips  # noqa: E402
from tests.support.spoken import ClipMaker, babble  # noqa: E402

STYLES = {"list": prompt_for, "sentences": prompt_as_sentences}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clips", type=int, default=300)
    parser.add_argument("--voices", choices=["tuning", "held-out"], default="tuning")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/bench-clips"), help="clip cache folder")
    args = parser.parse_args(argv)
    games = {name: game_module(name).sentences() for name in GAMES}
    clips = study_clips(args.voices, [c.name for c in CONDITIONS], games)[:args.clips]
    maker = ClipMaker(args.cache)
    noise = babble(maker)
    moments = {name: listening_moments(name) for name in games}
    ears = {name: open_ear(HearingSettings(recognizer="whisper"), games[name], engine="whisper", fallback=False)
            for name in games}
    whisper = open_transcriber(HearingSettings())
    right = dict.fromkeys(STYLES, 0)
    wrong = dict.fromkeys(STYLES, 0)
    taken = dict.fromkeys(STYLES, 0)
    commands = sum(1 for clip in clips if clip[4] is not None)
    for game, condition, text, speaker, expected, seed in clips:
        ear = ears[game]
        ear.set_intents(grammar_for(moments[game], expected.intent if expected else None) or games[game].intents)
        audio = make_clip(maker, text, speaker, condition, noise, seed).tobytes()
        helps = games[game].help_for(ear.graph.intents)
        whisper.hypotheses(audio, "", 1)  # the encoding, kept for each style's decoding
        for style, make in STYLES.items():
            written = (whisper.again(make(helps), 1) or [""])[0]
            spotted = ear.spot(written)
            command = spotted.command if isinstance(spotted, Transcript) else None
            if expected is None:
                taken[style] += command is not None
            else:
                right[style] += command == expected
                wrong[style] += command not in (None, expected)
    print(f"{len(clips)} clips of the {args.voices} voices: {commands} commands, {len(clips) - commands} table talk")
    for style in STYLES:
        print(f"{style:>10}: commands right {right[style]}/{commands}, wrong {wrong[style]}, "
              f"table talk taken {taken[style]}/{len(clips) - commands}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
