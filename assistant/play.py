"""``assistant play [GAME]``: the spoken menu, or a game started or resumed, by text (or voice)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from assistant import textplay
from assistant.box import Box, Games, Power, greet
from assistant.config import Config, state_dir
from assistant.games import game_spec
from assistant.journal import Journal, find_unfinished, report_to
from assistant.session import Announcer, PrintAnnouncer
from assistant.volume import Volume


def play(args: argparse.Namespace, config: Config) -> int:
    folder = state_dir(config)
    # The original shut itself off after 2-3 idle minutes and lost the game; this one pauses.
    # With the virtual clock, "wait S" means exactly that time passes, so no idle pause.
    idle = config.value("idle_pause_seconds") or None
    if args.clock == "virtual":
        idle = None
    games = Games(lambda name: settings_for(config, name), folder, args.seed, idle, resume=not args.new)
    volume = Volume.load(folder, config.value("volume"))
    power = Power.from_config(config)
    _print_problems(config)
    if not args.text:
        from assistant.live.run import run_live

        return run_live(args.game, config, games, volume, power)
    settings = games.settings(args.game) if args.game else None  # its problems printed before it starts
    announcer: Announcer = PrintAnnouncer()
    spoken = None
    if args.speak:
        from assistant.voice.announcer import SpokenAnnouncer

        announcer = spoken = SpokenAnnouncer.from_config(config, echo=True, game=args.game, settings=settings)
    box = Box(announcer, games, volume, power, menu_after_game=args.game is None,
              on_volume=None if spoken is None else spoken.set_gain)
    if args.game is None:
        box.show_menu()
    else:
        unfinished = _unfinished_to_resume(args, folder)
        session = games.make(args.game, announcer, unfinished)
        box.play(session)
        greet(session, unfinished is not None, note="")
    if spoken is not None:
        report_to(box.say)  # a storage problem is spoken too
        spoken.follow(box)  # BSat1 glitches more as the countdown runs out
    try:
        return textplay.run(box, sys.stdin, virtual=args.clock == "virtual")
    finally:
        if spoken is not None:
            report_to(None)
            spoken.close()


def settings_for(config: Config, game: str) -> dict[str, Any]:
    """The game's settings from config.yaml; problems with them are printed."""
    settings = game_spec(game).settings_from_config(config)
    _print_problems(config)
    return settings


def _print_problems(config: Config) -> None:
    for problem in config.problems:
        print(f"config: {problem}", file=sys.stderr)
    config.problems.clear()


def _unfinished_to_resume(args: argparse.Namespace, folder: Path) -> Journal | None:
    """The unfinished game to go on with: with --resume, or if the player at a terminal says so.

    Piped or scripted input is never asked (its first line is a command, not an answer): a
    new game starts and the unfinished one is kept as it is, for --resume."""
    unfinished = None if args.new else find_unfinished(folder, args.game)
    if unfinished is None:
        if args.resume:
            print(f"No unfinished {args.game} game to resume; starting a new one.", file=sys.stderr)
        return None
    if args.resume:
        return unfinished
    started = unfinished.header.get("started")
    if not _interactive(sys.stdin):
        print(f"An unfinished {args.game} game from {started} is kept (--resume continues it); "
              "starting a new one.", file=sys.stderr)
        return None
    print(f"An unfinished {args.game} game from {started} was found. "
          "Type 'resume' to continue it, anything else to start a new game.", flush=True)
    if sys.stdin.readline().strip().lower() in ("resume", "yes", "y"):
        return unfinished
    unfinished.append({"end": "abandoned"})
    return None


def _interactive(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False
