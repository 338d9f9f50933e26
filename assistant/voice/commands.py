"""``assistant say "text" --voice virus|bsat1|narrator [-o out.wav]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assistant.config import Config
from assistant.engine import Say
from assistant.voice.announcer import SpokenAnnouncer
from assistant.voice.playback import WavFileSink
from assistant.voice.synth import VoiceMissing
from assistant.voice.voices import Voices


def say_main(args: argparse.Namespace, config: Config) -> int:
    text = str(args.text).strip()
    name = str(args.voice or "virus").strip().lower()
    if not text:
        print("Nothing to say: give the words in quotes, e.g. assistant say \"Code zero one.\"",
              file=sys.stderr)
        return 2
    output = getattr(args, "output", None)
    if output:
        return _write(text, name, Path(output), config)
    announcer = SpokenAnnouncer.from_config(config, echo=False, without_sound="nothing was said")
    try:
        if announcer.voices is None:
            return 1
        if name not in announcer.voices.specs:
            return _unknown(name, announcer.voices)
        if announcer.sink is None:
            print("No sound output (see above); write a file instead with -o out.wav", file=sys.stderr)
            return 1
        announcer.announce([Say(name.upper(), text)])
    finally:
        announcer.close()
    return 0


def _write(text: str, name: str, path: Path, config: Config) -> int:
    already = len(config.problems)
    try:
        voices = Voices.from_config(config, load="lazy")
    except VoiceMissing as error:
        print(f"voice: {error}", file=sys.stderr)
        return 1
    finally:
        for problem in config.problems[already:]:
            print(f"config: {problem}", file=sys.stderr)
        del config.problems[already:]
    if name not in voices.specs:
        return _unknown(name, voices)
    try:
        sink = WavFileSink(path, voices.sounds.rate)
    except OSError as error:
        print(f"Cannot write {path}: {error.strerror or error}", file=sys.stderr)
        return 1
    def report(message: str) -> None:
        if sink.error is None:  # a failed write is told below, in the words of a file
            print(f"voice: {message}", file=sys.stderr)

    announcer = SpokenAnnouncer(voices, sink, echo=False, report=report)
    try:
        announcer.announce([Say(name.upper(), text)])
    except KeyboardInterrupt:  # Ctrl-C: a cut-off file is no use to anyone
        sink.close()
        path.unlink(missing_ok=True)
        print(f"Stopped; {path} was not written.", file=sys.stderr)
        return 130
    finally:
        sink.close()
    if sink.error is not None:
        path.unlink(missing_ok=True)  # a cut-off file is no use to anyone
        print(f"Cannot write {path}: {sink.error.strerror or sink.error}; nothing was written.", file=sys.stderr)
        return 1
    seconds = sink.frames / sink.rate
    print(f"Wrote {path}: {seconds:.1f} s at {sink.rate} Hz, {name} voice (peak {sink.peak:.2f}).")
    return 0


def _unknown(name: str, voices: Voices) -> int:
    print(f"No voice called {name!r}; choose one of: {', '.join(voices.specs)}.", file=sys.stderr)
    return 2
