"""``assistant transcribe FILE.wav [--game omega-virus] [--json]``: what a recording says.

Prints what the recognizer heard, the command it matched (checked against every sentence
of the game), and for a game played on a keypad (the Command Center) the buttons it stands
for. The exit status is 0 for a command, 1 when nothing matched, 2 when the file or the
recognizer is unusable.
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


def transcribe_main(args: argparse.Namespace, config: Config) -> int:
    known = len(config.problems)
    settings = HearingSettings.from_config(config)
    engine = choose(settings).name
    if engine == "text":  # a recording needs an audio recognizer: take the one auto would
        settings.recognizer = "auto"
        engine = choose(settings).name
    spec = game_spec(args.game)
    sentences = spec.sentences()
    keypad = spec.keypad(config) if spec.keypad is not None else None
    for problem in config.problems[known:]:
        print(f"config: {problem}", file=sys.stderr)
    try:
        samples = load_16k(args.wav)
    except (AudioError, OSError) as error:
        print(f"transcribe: {error}", file=sys.stderr)
        return 2
    try:
        ear = open_ear(settings, sentences, engine=engine,
                       warn=lambda message: print(f"transcribe: {message}", file=sys.stderr))
    except ModelError as error:
        print(f"transcribe: {error}", file=sys.stderr)
        return 2
    result = ear.hear(samples)
    name = ear.recognizer.name + ("+whisper" if ear.second is not None else "")
    out: dict[str, Any] = {"file": str(args.wav), "game": args.game, "recognizer": name,
                           "seconds": round(len(samples) / 16000, 2)}
    if isinstance(result, Transcript) and result.command is not None:
        out.update(heard=result.heard, text=result.text, confidence=round(result.confidence, 3),
                   command=result.command.to_json(), snapped=result.snapped)
        buttons = keypad(result.command) if keypad is not None else None
        if buttons is not None:
            out["buttons"] = buttons
    else:
        out.update(heard=result.heard if hasattr(result, "heard") else "", command=None,
                   reason=getattr(result, "reason", ""), confidence=round(result.confidence, 3))
    if args.json:
        print(json.dumps(out))
    else:
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
