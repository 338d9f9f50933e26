"""``assistant say "text" --voice virus|bsat1|narrator [-o out.wav]``: a character's voice, or a
game's speaker's as in play (``--voice zark``: the narrator's, ZARK having no character of its own)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assistant.config import Config
from assistant.engine import Say
from assistant.games import specs
from assistant.voice.announcer import SpokenAnnouncer
from assistant.voice.characters import character_for, character_names
from assistant.voice.playback import WavFileSink
from assistant.voice.synth import VoiceMissing
from assistant.voice.voices import Voices


def say_main(args: argparse.Namespace, config: Config) -> int:
    text = str(args.text).strip()
    if not text:
        print("Nothing to say: give the words in quotes, e.g. assistant say \"Code zero one.\"",
              file=sys.stderr)
        return 2
    asked = str(args.voice or "virus")
    found = character(asked, config)
    if found is None:  # told before a speaker is looked for, or a voice loaded
        known = character_names(config)
        others = sorted(other_speakers(known))
        also = f" (a game's other speakers, such as {', '.join(others)}, speak as the narrator)" if others else ""
        print(f"No voice called {asked!r}; choose one of: {', '.join(known)}{also}.", file=sys.stderr)
        return 2
    name = found
    output = getattr(args, "output", None)
    if output:
        return _write(text, name, Path(output), config)
    announcer = SpokenAnnouncer.from_config(config, echo=False, without_sound="nothing was said")
    try:
        if announcer.voices is None:
            return 1
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


def game_speakers() -> set[str]:
    """Every game's speakers, as its lines name them ("ZARK", "BSAT1")."""
    found: set[str] = set()
    for spec in specs():
        try:
            found.update(spec.create(0, spec.settings_from_config(Config())).speakers)
        except Exception:  # a game that cannot start here adds no speaker
            continue
    return found


def other_speakers(known: list[str]) -> set[str]:
    """The games' speakers with no character of their own (they speak as the narrator)."""
    return {speaker for speaker in game_speakers() if speaker.lower() not in known}


def character(voice: str, config: Config) -> str | None:
    """The character ``--voice`` names: one of the characters (config.yaml may add some), or a
    game's speaker, spoken as in play ("zark", with no character of its own: the narrator);
    None for any other name."""
    known = character_names(config)
    key = voice.strip().lower().replace(" ", "_")
    if key in known:
        return key
    if key in {speaker.lower().replace(" ", "_") for speaker in game_speakers()}:
        return character_for(key, dict.fromkeys(known))
    return None
