"""``assistant play [GAME]``: the spoken menu, or a game started or resumed, by text (or voice)."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant import textplay
from assistant.box import Box, Games, Power, at_a_terminal, greet, replaced_said
from assistant.config import Config, state_dir
from assistant.games import GAMES, game_spec
from assistant.journal import Journal, report_to, unfinished_games
from assistant.session import Announcer, PrintAnnouncer, journal_said
from assistant.volume import Volume

if TYPE_CHECKING:
    from assistant.phone import PhoneKeypad  # imported when phones are used: it brings aiohttp
    from assistant.voice.announcer import SpokenAnnouncer


def play(args: argparse.Namespace, config: Config) -> int:
    """Play, and leave by any way out (Ctrl-C, SIGTERM from systemd, end of input) with one line
    on stderr and the game kept: every entry is on disk already, the time since is written on
    the way out."""
    held: list[Box] = []
    with _sigterm_as_interrupt():
        try:
            return _play(args, config, held)
        except KeyboardInterrupt:
            print(f"Stopped. {_kept(held[0] if held else None, args)}".strip(), file=sys.stderr, flush=True)
            return 0
        except EOFError:  # the input ended while the resume question waited for its answer
            print(f"No answer. The unfinished {args.game} game is kept; `assistant play {args.game} --text "
                  "--resume` goes on with it.", file=sys.stderr, flush=True)
            return 0


@dataclass(frozen=True)
class PlaySettings:
    """What play reads of the settings before anything starts (the games and the parts of the
    box read their own as they start)."""

    folder: Path
    #: The original shut itself off after 2-3 idle minutes and lost the game; this one pauses.
    idle: float | None
    volume: int
    power: Power

    @classmethod
    def from_config(cls, config: Config) -> PlaySettings:
        return cls(state_dir(config), config.value("idle_pause_seconds") or None, config.value("volume"),
                   Power.from_config(config))


def _play(args: argparse.Namespace, config: Config, held: list[Box]) -> int:
    start = PlaySettings.from_config(config)
    folder = start.folder
    # With the virtual clock, "wait S" means exactly that time passes, so no idle pause.
    idle = None if args.clock == "virtual" else start.idle
    # A seed asks for a new game: it never goes on with an old one (that one is kept).
    resume = args.resume or (not args.new and args.seed is None)
    games = Games(lambda name: settings_for(config, name), folder, args.seed, idle, resume=resume)
    volume = Volume.load(folder, start.volume)
    power = start.power
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
    phone = _phone_keypad(config)
    try:
        box = _text_box(announcer, games, volume, power, args, spoken, phone)
        held.append(box)
        if args.game is None:
            box.show_menu()
        else:
            unfinished = _unfinished_to_resume(args, folder)
            session = games.make(args.game, announcer, unfinished)
            box.play(session)
            greet(session, unfinished is not None, note="")
            if box.on_phone is not None and session.spec.private_colors:
                box.say(box.on_phone() or "")
        if spoken is not None:
            report_to(box.say)  # a storage problem is spoken too
            spoken.follow(box)  # BSat1 glitches more as the countdown runs out
        textplay.run(box, sys.stdin, virtual=args.clock == "virtual", keypad=phone if box.on_phone else None)
        if not box.shutting_down:
            told = _kept(box, args)
            if told:
                print(f"End of input. {told}", file=sys.stderr, flush=True)
        return 0
    finally:
        if phone is not None:
            phone.stop()
        if spoken is not None:
            report_to(None)
            spoken.close()


def _phone_keypad(config: Config) -> PhoneKeypad | None:
    """The phone keypad, when ``keypad.source`` names phones: typed moves, and the secret presses
    on the players' phones (for a table with no microphone). The other sources are hands-free's."""
    raw = config.raw("keypad.source", None)
    if "phone" not in (list(map(str, raw)) if isinstance(raw, list) else [str(raw)]):
        return None
    from assistant.live.keypads import open_keypad
    from assistant.live.run import phone_keypad

    return phone_keypad(open_keypad(config))


def _text_box(announcer: Announcer, games: Games, volume: Volume, power: Power, args: argparse.Namespace,
              spoken: SpokenAnnouncer | None, phone: PhoneKeypad | None) -> Box:
    """The box typed play drives; with phones, the hands-free box's phone commands and news too."""
    menu_after_game = args.game is None
    on_volume = None if spoken is None else spoken.set_gain
    if phone is not None:
        from assistant.phone import PhoneError

        try:
            phone.start(lambda button: None)  # textplay.run hands it the presses
        except PhoneError as error:
            print(f"keypad: {error} Playing without phones.", file=sys.stderr, flush=True)
            phone = None
    if phone is None:
        return Box(announcer, games, volume, power, menu_after_game=menu_after_game, on_volume=on_volume)
    from assistant.live.run import TableBox, hand_over_said, phone_announced

    def announced() -> str:
        """The address and PIN (and the QR code on stderr); as the voice reads it, or as printed."""
        said = phone_announced(serving)
        return said if spoken is not None else serving.announcement()

    class PhoneBox(TableBox):
        def start_game(self, name: str) -> None:
            super().start_game(name)
            if self.session is not None and self.session.spec.private_colors:
                self.say(announced())  # a new game has a new PIN, said once it is played

    serving = phone
    box = PhoneBox(announcer, games, volume, power, menu_after_game=menu_after_game, on_volume=on_volume,
                   on_phone=announced,
                   on_hand_over=lambda color: hand_over_said(serving, color), phone=serving)
    busy = spoken.speaking.busy if spoken is not None else None
    serving.follow(lambda: box.session, busy=busy)
    return box


def _kept(box: Box | None, args: argparse.Namespace) -> str:
    """What is kept on the way out: the game being played, unless it is over; else, when no
    game was started yet, the unfinished one that was found."""
    session = box.session if box is not None else None
    if session is None:
        if args.game is None:
            return ""  # the menu: the games it set aside are resumed by their names
        return f"Any unfinished {args.game} game is kept."
    if session.game.is_over() or session.journal is None:
        return ""
    name = session.game_name
    how = f"assistant play {name} --text --resume" if args.text else f"assistant play {name}"
    return f"The {name} game is kept; `{how}` goes on with it."


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (systemd stopping the service, `kill`) ends play as Ctrl-C does: tidily."""
    try:
        before = signal.signal(signal.SIGTERM, signal.default_int_handler)
    except ValueError:  # not the main thread (a test calling play): nothing to set
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def settings_for(config: Config, game: str) -> dict[str, Any]:
    """The game's settings from config.yaml; problems with them are printed."""
    settings = game_spec(game).settings_from_config(config)
    _print_problems(config)
    return settings


def settings_problems(config: Config) -> list[str]:
    """Every problem play reports of the settings, however it is played and whichever game: each
    setting read now by the code play reads it with (``assistant doctor`` lists these). Taken out
    of ``config.problems``, with those found before (keys that are not settings, a broken line)."""
    from assistant.hearing import HearingSettings
    from assistant.live.gpio import gpio_settings
    from assistant.live.keypads import DEFAULT_CHAR_KEYS, DEFAULT_EVDEV_KEYS, keypad_keys, talk_keys
    from assistant.live.settings import keypad_sources
    from assistant.voice.characters import CharacterSpec, character_names
    from assistant.voice.sounds import sound_table
    from assistant.voice.voices import VoiceSettings

    PlaySettings.from_config(config)
    for name in GAMES:
        game_spec(name).settings_from_config(config)
    VoiceSettings.from_config(config)
    sound_table(config)
    for name in character_names(config):
        CharacterSpec.from_config(config, name)
    HearingSettings.from_config(config)
    for source in keypad_sources(config):
        if source == "gpio":
            gpio_settings(config)
        elif source in ("terminal", "fifo", "evdev"):
            evdev = source == "evdev"
            buttons = keypad_keys(config, evdev) or dict(DEFAULT_EVDEV_KEYS if evdev else DEFAULT_CHAR_KEYS)
            talk_keys(config, evdev, buttons)
    config.read_written()  # the rest: each value as its part reads it
    found = list(dict.fromkeys(config.problems))  # (a part read twice may append its problem twice)
    config.problems.clear()
    return found


def _print_problems(config: Config) -> None:
    for problem in config.problems:
        print(f"config: {problem}", file=sys.stderr)
    config.problems.clear()


RESUME_ANSWERS = frozenset({"resume", "r", "yes", "y", "continue", "go on"})
NEW_ANSWERS = frozenset({"new", "n", "new game", "no"})


def _unfinished_to_resume(args: argparse.Namespace, folder: Path) -> Journal | None:
    """The unfinished game to go on with: with --resume, or if the player at a terminal says so.

    Piped or scripted input is never asked (its first line is a command, not an answer), nor is
    a start with --new or --seed (a seed asks for a new game): a new game starts, and its first
    move replaces the unfinished one (each game keeps one). At a terminal nothing but "resume" or a
    confirmed "new" answers: a bare Enter or a typo asks again, and the end of input leaves
    (EOFError). Older unfinished games (an older version kept every one) go at the next move."""
    found = unfinished_games(folder, args.game)
    if not found:
        if args.resume:
            print(f"No unfinished {args.game} game to resume; starting a new one.", file=sys.stderr)
        return None
    unfinished, older = found[0], found[1:]
    started = unfinished.header.get("started")
    also = (f" {len(older)} older unfinished {args.game} game{'s go' if len(older) > 1 else ' goes'} at the next "
            f"move (the oldest from {str(older[-1].header.get('started'))[:16]}): each game keeps one."
            if older else "")
    if args.resume:
        if older:
            print(f"Going on with the {journal_said(unfinished)}.{also}", file=sys.stderr)
        return unfinished
    if args.new or args.seed is not None or not at_a_terminal(sys.stdin):
        print(f"{replaced_said(unfinished, f'assistant play {args.game} --text --resume')}{also}", file=sys.stderr)
        return None
    print(f"An unfinished {journal_said(unfinished)} was found.{also} "
          "Type resume to go on with it, or new to start a new game.", flush=True)
    while True:
        answer = _answer()
        if answer in RESUME_ANSWERS:
            return unfinished
        if answer in NEW_ANSWERS:
            print(f"Start a new game? The one from {started} will be lost. Type yes or no.", flush=True)
            if _answer() in ("yes", "y"):
                unfinished.append({"end": "abandoned"})
                return None
            print(f"The game from {started} is kept. Type resume to go on with it, or new to start "
                  "a new game.", flush=True)
            continue
        print(f"Type resume to go on with the game from {started}, or new to start a new game.", flush=True)


def _answer() -> str:
    """The player's next line, in lower case (EOFError at the end of input)."""
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return " ".join(line.lower().replace("'", "").split())
