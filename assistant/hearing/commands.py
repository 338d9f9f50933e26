"""``assistant transcribe FILE.wav [--game omega-virus] [--moment NAME] [--json]``: what a
recording says.

Prints what the recognizer heard, the command it matched (checked against every sentence
of the game, or with ``--moment`` only those the game listens for at that moment of play:
``assistant.hearing.moments``), and for a game played on a keypad (the Command Center) the
buttons it stands for. ``--moment list`` names the game's moments. The exit status is 0 for a
command, 1 when nothing matched, 2 when the file, the moment or the recognizer is unusable.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from assistant.config import Config
from assistant.games import game_spec
from assistant.hearing import HearingSettings, ModelError, Transcript, choose, open_ear
from assistant.hearing.audio import AudioError, load_16k


def list_moments(game: str) -> int:
    """``--moment list``: each moment of ``game`` found by playing it, and what it listens for."""
    from assistant.hearing.moments import menu_moment, moments

    print(f"Moments of {game} (found by seeded random play; the intents listened for):")
    for moment in (*moments(game), menu_moment()):
        print(f"  {moment.name:<14} {' '.join(sorted(moment.intents))}")
    return 0


def transcribe_main(args: argparse.Namespace, config: Config) -> int:
    moment_name = getattr(args, "moment", None)
    if moment_name == "list":
        return list_moments(args.game)
    if args.wav is None:
        print("transcribe: give a WAV file (or --moment list)", file=sys.stderr)
        return 2
    known = len(config.problems)
    settings = HearingSettings.from_config(config)
    engine = choose(settings).name
    if engine == "text":  # a recording needs an audio recognizer: take the one auto would
        settings.recognizer = "auto"
        engine = choose(settings).name
    spec = game_spec(args.game)
    sentences = spec.sentences()
    keypad = spec.keypad(config) if spec.keypad is not None else None
    moment = None
    if moment_name is not None:
        from assistant.hearing.moments import MENU, find_moment

        try:
            moment = find_moment(args.game, moment_name)
        except KeyError as error:
            print(f"transcribe: {error.args[0]}", file=sys.stderr)
            return 2
        if moment.name == MENU:
            from assistant.menu import menu_sentences, offered

            sentences, keypad = menu_sentences(offered()), None
    for problem in config.problems[known:]:
        print(f"config: {problem}", file=sys.stderr)
    try:
        samples = load_16k(args.wav)
    except (AudioError, OSError) as error:
        print(f"transcribe: {error}", file=sys.stderr)
        return 2
    try:
        ear = open_ear(settings, sentences, moment.intents if moment is not None else None, engine=engine,
                       warn=lambda message: print(f"transcribe: {message}", file=sys.stderr))
    except ModelError as error:
        print(f"transcribe: {error}", file=sys.stderr)
        return 2
    result = ear.hear(samples)
    name = ear.recognizer.name + ("+whisper" if ear.second is not None else "")
    out: dict[str, Any] = {"file": str(args.wav), "game": args.game, "recognizer": name,
                           "seconds": round(len(samples) / 16000, 2)}
    if moment is not None:
        out.update(moment=moment.name, listened_for=sorted(moment.intents))
    if isinstance(result, Transcript) and result.command is not None:
        out.update(heard=result.heard, text=result.text, confidence=round(result.confidence, 3),
                   command=result.command.to_json(), snapped=result.snapped)
        buttons = keypad(result.command) if keypad is not None else None
        if buttons is not None:
            out["buttons"] = buttons
    else:
        out.update(heard=result.heard if hasattr(result, "heard") else "", command=None,
                   reason=getattr(result, "reason", ""), confidence=round(result.confidence, 3))
    # how the hybrid decided (its last utterance's): each stage's verdict and CPU seconds
    out["steps"] = [{"stage": step.stage, "verdict": step.verdict, "cpu_seconds": round(step.seconds, 3)}
                    for step in getattr(ear, "steps", [])]
    if args.json:
        print(json.dumps(out))
    else:
        if moment is not None:
            print(f"moment:  {moment.name} (listening for {', '.join(sorted(moment.intents))})")
        print(f"heard:   {out['heard'] or '(nothing)'}")
        if out["command"] is None:
            print(f"command: none ({out['reason']})")
        else:
            slots = " ".join(f"{k}={v}" for k, v in out["command"]["slots"].items())
            snapped = f"  (snapped to: {out['text']})" if out["snapped"] else ""
            print(f"command: {out['command']['intent']} {slots}".rstrip() + snapped)
            if "buttons" in out:
                print(f"buttons: {out['buttons']}")
    return 0 if out["command"] is not None else 1
