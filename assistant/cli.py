"""assistant: an offline voice game-master for The Omega Virus and three more table games.

Play hands-free (assistant play omega-virus) or by typing (--text); see README.md."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from assistant.config import Config, state_dir
from assistant.games import GAMES, game_module


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assistant", description=__doc__)
    parser.add_argument("--config", default=os.environ.get("ASSISTANT_CONFIG") or None,
                        help="settings file (default: $ASSISTANT_CONFIG, else ./config.yaml)")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game")
    play.add_argument("game", nargs="?", choices=list(GAMES),
                      help="the game to play; none: a spoken menu asks which")
    play.add_argument("--text", action="store_true", help="type commands on stdin, read answers")
    play.add_argument("--speak", action="store_true", help="with --text: speak the answers too")
    play.add_argument("--seed", type=int, help="random seed (same seed + inputs = same game)")
    play.add_argument("--clock", choices=["real", "virtual"], default="real",
                      help="virtual: time passes only with 'wait S' lines")
    group = play.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="resume the unfinished game")
    group.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")

    board = sub.add_parser("board", help="print the Omega Virus room and Command Code tables")
    board.add_argument("--board", help="a board YAML file instead of the configured one")

    say = sub.add_parser("say", help="speak a sentence in a character's voice")
    say.add_argument("text")
    say.add_argument("--voice", default="virus",
                     help="a character: virus, bsat1 or narrator (and any added under characters: in config.yaml); "
                     "a game's other speakers, such as zark, speak as the narrator, as in play")
    say.add_argument("-o", "--output", help="write a WAV file instead of playing")

    transcribe = sub.add_parser("transcribe", help="recognize a WAV file")
    transcribe.add_argument("wav", nargs="?", help="the recording (any rate, channels, 8- to 32-bit)")
    transcribe.add_argument("--game", default="omega-virus", choices=list(GAMES))
    transcribe.add_argument("--moment", help="hear it with the grammar of a moment of play of the game "
                            "(a move, shields, yes or no, skill, menu ...); 'list' names them. "
                            "Default: every sentence of the game")
    transcribe.add_argument("--json", action="store_true")

    setup = sub.add_parser("setup", help="check the speech models (Vosk's if asked) and prepare the voices",
                           description="Check Whisper, the second opinion (downloaded only if the packages lack it), "
                           "and render every game's fixed phrases. Vosk's English model (about 40 MB) is downloaded "
                           "only with --vosk, or when config.yaml says recognizer: vosk-hybrid or vosk: recognizer "
                           "auto hears with PocketSphinx first and Whisper tiny.en second, the combination the "
                           "published figures were measured with, whatever is on disk.")
    models = setup.add_mutually_exclusive_group()
    models.add_argument("--vosk", action="store_true",
                        help="also download Vosk's English model, for recognizer: vosk-hybrid (Vosk first, Whisper "
                        "second; not measured here: `assistant doctor` gives the command that measures it on this "
                        "machine) or vosk. Not needed when config.yaml already says one of them")
    models.add_argument("--skip-model", action="store_true", help="neither check nor download any speech model")
    setup.add_argument("--skip-voices", action="store_true", help="do not render the voice cache")
    sub.add_parser("doctor", help="check audio devices, recognizer and voices")

    service = sub.add_parser("install-service", help="start the assistant at boot (a systemd service)")
    service.add_argument("--uninstall", action="store_true", help="stop it and remove the service")
    service.add_argument("--system", action="store_true",
                         help="a system service (runs as a given user) instead of the user's own service")
    service.add_argument("--root", help="write under this folder instead of / and run no systemctl "
                         "(for images and tests)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # e.g. `assistant board | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # Ctrl-C in any other command (play says what it kept itself)
        print("Stopped.", file=sys.stderr)
        return 130
    except RuntimeError as error:  # Ctrl-C while a module loads, wrapped by Python (interrupt.py)
        from assistant.interrupt import interrupted

        if not interrupted(error):
            raise
        print("Stopped.", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    from assistant.memory import limit_malloc_arenas, map_big_blocks

    limit_malloc_arenas()  # before any thread starts: play, say and setup run several
    map_big_blocks()
    args = build_parser().parse_args(argv)
    config = Config.load(args.config)
    if args.command != "doctor":  # the doctor lists them among its checks
        for problem in config.problems:
            print(f"config: {problem}", file=sys.stderr)
        config.problems.clear()  # each is told once
    if args.command == "play":
        from assistant.play import play

        return play(args, config)
    if args.command == "board":
        return _board(args.board, config)
    if args.command == "say":
        from assistant.voice.commands import say_main

        return say_main(args, config)
    if args.command == "transcribe":
        from assistant.hearing.commands import transcribe_main

        return transcribe_main(args, config)
    if args.command == "setup":
        from assistant.setup import setup_main

        return setup_main(args, config)
    if args.command == "doctor":
        from assistant.doctor import doctor_main

        return doctor_main(args, config)
    if args.command == "install-service":
        from assistant.service import service_main

        return service_main(args, config)
    return 2


DEFAULT_BOARD = "assistant/games/omega_virus/board.yaml"


def _board(path: str | None, config: Config) -> int:
    """The room and Command Code tables, after a first line that says whose they are."""
    module = game_module("omega-virus")
    configured = config.value("games.omega_virus.board").strip()
    known = len(config.problems)
    try:
        table = module.board_text(config, path)
    except (ValueError, OSError) as error:  # a --board file that cannot be used
        print(f"board: {error}", file=sys.stderr)
        return 1
    for problem in config.problems[known:]:
        print(f"config: {problem}", file=sys.stderr)
    if path:
        first = f"The board in {path} (given with --board)."
    elif configured and len(config.problems) == known:
        first = f"Your board from {configured} (games.omega_virus.board in {config.path or 'config.yaml'})."
    else:
        first = (f"The shipped default board ({DEFAULT_BOARD}), not the printed board's (no public source "
                 "has it): if yours differs, copy that file, edit it, and set games.omega_virus.board in "
                 "config.yaml to its path.")
    print(first)
    print(table)
    return 0


__all__ = ["main", "state_dir"]
