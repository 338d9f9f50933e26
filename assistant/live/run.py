"""``assistant play [GAME]`` with no flags: hands-free, microphone and keypad in, voices out.

With no game, the spoken menu asks which; the box (assistant/box.py) holds the menu or the
game, and the loop gets an ear for the new sentences whenever that changes. ``HandsFree`` is
the whole of it, in named parts: the ``Hearing`` (a new ear for each set of sentences), the
``Devices`` (microphone and speaker), the ``Phones`` and the ``TableBox``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TextIO

from assistant.box import (
    Box,
    Games,
    Power,
    at_a_terminal,
    greet,
    phone_handed_over_said,
    phone_waiting_said,
    play_by_typing,
)
from assistant.config import Config
from assistant.games import game_spec
from assistant.hearing.learning import TableVoices
from assistant.hearing.recognizer import Ear
from assistant.journal import report_to
from assistant.live.gpio import open_status_light
from assistant.live.keypad import Keypad
from assistant.live.keypads import members, open_keypad, working
from assistant.live.loop import LiveLoop, LiveSettings
from assistant.live.microphone import Block, Microphone, MicrophoneError
from assistant.menu import menu_phrases
from assistant.schema import read_declared
from assistant.sentences import SentenceSet
from assistant.volume import Volume

if TYPE_CHECKING:
    from assistant.hearing import Choice, HearingSettings
    from assistant.phone import PhoneKeypad  # imported when one is used: it brings aiohttp
    from assistant.voice.announcer import SpokenAnnouncer

#: Said once after the start (or resume) when ``listen: push-to-talk``.
PUSH_TO_TALK_HINT = "Press the talk key, then speak."


@dataclass
class TableBox(Box):
    """The box as hands-free play drives it: between inputs, in the live loop's thread (so
    never over other speech), it also tells the table when a new phone asks for a color that
    another phone has, once for each such phone, and only while the table could give it."""

    phone: PhoneKeypad | None = None

    def advance(self, seconds: float) -> None:
        self.tell_waiting_phones()
        super().advance(seconds)

    def tell_waiting_phones(self) -> None:
        if self.phone is None or "phone_hand_over" not in self.allowed_intents():
            return  # not now: a question waits for yes or no, not listening, or the menu
        for color in self.phone.newly_waiting():
            self.say(phone_waiting_said(color))


def live_settings(config: Config) -> LiveSettings:
    return read_declared(LiveSettings, config)


def hear_pushed_to_talk(hearing: HearingSettings) -> None:
    """Only what is said after a talk press is heard, so table talk cannot reach the ear: no
    need to doubt commands for sounding unlike themselves, nor to veto them; and Whisper's last
    try (``as_sentences``), off when listening always for the table talk it takes, is all gain."""
    hearing.phone_check = hearing.early_phone_check = 0.0
    hearing.veto = False
    hearing.as_sentences = True


@dataclass
class Hearing:
    """The ear, made again for each new set of sentences (the menu's, a game's): on the chosen
    recognizer, or on PocketSphinx from the first time that one's model cannot be loaded.
    Each warning is printed once (the same one for the next game's ear is no news)."""

    settings: HearingSettings
    choice: Choice
    engine: str = ""
    warned: set[str] = field(default_factory=set)
    #: what hearing learns of the table's voices this evening, shared by every game's ear (in memory only)
    voices: TableVoices = field(default_factory=TableVoices)

    @classmethod
    def from_config(cls, config: Config) -> Hearing:
        """The settings and the recognizer chosen; Whisper loaded first, while the process is
        small (loading it briefly takes twice its size)."""
        from assistant.hearing import HearingSettings, choose, preload_whisper

        settings = HearingSettings.from_config(config)
        choice = choose(settings)
        if "whisper" in (choice.engine, choice.second):
            preload_whisper(settings)
        return cls(settings, choice, choice.name)

    def warn(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            print(f"hearing: {message}", file=sys.stderr, flush=True)

    def ear_for(self, sentences: SentenceSet, intents: Iterable[str]) -> Ear:
        from assistant.hearing import ModelError, open_ear

        try:
            return open_ear(self.settings, sentences, intents, self.engine, warn=self.warn, voices=self.voices)
        except ModelError as error:
            self.warn(f"{error} Using PocketSphinx instead.")
            self.engine = "pocketsphinx"
            return open_ear(self.settings, sentences, intents, "pocketsphinx", warn=self.warn, voices=self.voices)


@dataclass
class Devices:
    """The microphone and the speaker. PortAudio lists the devices only when it starts, and
    restarting it needs every stream closed: ``rescan`` does both, so a device plugged in
    later is found."""

    mic: Microphone
    announcer: SpokenAnnouncer

    def rescan(self) -> None:
        from assistant.voice.playback import rescan_devices

        self.mic.close()
        self.announcer.release_output()
        rescan_devices()

    def name_a_missing_microphone(self) -> None:
        """With no speaker the game waits for one before it listens, and the microphone would
        not be tried until then: try it now, so the player hears of both at once."""
        if self.announcer.voices is None or self.announcer.sink is not None:
            return  # the speaker works (or speech is off): the live loop tries the microphone
        try:
            self.mic.open()
        except MicrophoneError as error:
            print(f"microphone: {error} I will keep trying once the speaker works.", file=sys.stderr, flush=True)
        finally:
            self.mic.close()


@dataclass
class MicOrTyping:
    """The microphone as the live loop opens it, for a player at a terminal: a microphone that
    cannot be opened is told with what to do meanwhile (play by typing)."""

    mic: Microphone
    meanwhile: Callable[[], str]
    block_seconds: float = field(init=False)

    def __post_init__(self) -> None:
        self.block_seconds = self.mic.block_seconds

    def open(self) -> None:
        try:
            self.mic.open()
        except MicrophoneError as error:
            raise MicrophoneError(f"{error} {self.meanwhile()}") from error

    def read(self, timeout: float) -> Block | None:
        return self.mic.read(timeout)

    def alive(self) -> bool:
        return self.mic.alive()

    def drain(self) -> None:
        self.mic.drain()

    def close(self) -> None:
        self.mic.close()


@dataclass
class Phones:
    """The phone keypad among the keypads, if there is one: what the table hears of it."""

    phone: PhoneKeypad | None

    def announced(self) -> str | None:
        """Its address and PIN (None: no phone keypad)."""
        return None if self.phone is None else phone_announced(self.phone)

    def hand_over(self, color: str) -> str | None:
        return None if self.phone is None else hand_over_said(self.phone, color)


class HandsFree:
    """Hands-free play of one game, or of the spoken menu's choices (game None), in named parts:
    the hearing, the keypad, the devices, the phones and the box, run by the live loop."""

    def __init__(self, game: str | None, config: Config, games: Games, volume: Volume, power: Power) -> None:
        from assistant.voice.announcer import SpokenAnnouncer

        self.game, self.config = game, config
        self.hearing = Hearing.from_config(config)
        self.loop_settings = live_settings(config)
        self.keypad = self._keypad()
        self.light = open_status_light(config)  # the box's LED (GPIO), if it has one
        self.games = self._games(games)
        settings = self.games.settings(game) if game else None
        for problem in config.problems:
            print(f"config: {problem}", file=sys.stderr)
        config.problems.clear()
        announcer = SpokenAnnouncer.from_config(config, echo=True, game=game, settings=settings)
        self.announcer = announcer
        self.devices = Devices(Microphone(config.value("live.input_device"), self.loop_settings.block_seconds),
                               announcer)
        # no screen: a missing device is waited for; at a terminal, typing is offered meanwhile (not the service's)
        self.meanwhile = self.typing_instead if at_a_terminal() else None
        announcer.keep_trying(self.loop_settings.retry_seconds, before_reopen=self.devices.rescan,
                              meanwhile=self.meanwhile)
        self.phones = Phones(phone_keypad(self.keypad))
        phone = self.phones.phone
        self.box = TableBox(announcer, self.games, volume, power, menu_after_game=game is None,
                            on_volume=announcer.set_gain, on_switch=self.switched,
                            on_phone=self.phones.announced if phone is not None else None,
                            on_hand_over=self.phones.hand_over if phone is not None else None, phone=phone)
        if phone is not None:
            box, tail = self.box, self.loop_settings.mute_tail_seconds
            phone.follow(lambda: box.session, busy=lambda: announcer.speaking.busy(tail))

    def _keypad(self) -> Keypad | None:
        """The keypads that work; push-to-talk needs one to talk with, and hears only what follows a press."""
        settings = self.loop_settings
        keypad = working(open_keypad(self.config), lambda problem: print(
            f"keypad: {problem} Playing without it: secret codes can be spoken, shots are random.", file=sys.stderr))
        if settings.push_to_talk and keypad is not None:
            hear_pushed_to_talk(self.hearing.settings)
        if settings.push_to_talk and keypad is None:
            print("listen: push-to-talk needs a keypad to talk with; listening always instead.", file=sys.stderr)
            settings.listen = "always"
        return keypad

    def _games(self, games: Games) -> Games:
        """The games with what hands-free play changes in their settings (their specs say what)."""
        text_settings = games.settings_for
        has_keypad = self.keypad is not None
        return replace(games, settings_for=lambda name: game_spec(name).live_settings(
            text_settings(name), self.config, has_keypad))

    def typing_instead(self) -> str:
        """How to play what is played now by typing."""
        session = self.box.session
        return play_by_typing(session.game_name if session is not None else None)

    def prepare(self, name: str | None) -> None:
        """Render the menu's or the next game's phrases in the background."""
        announcer = self.announcer
        if announcer.voices is None or not announcer.voices.settings.render_at_start:
            return
        if name is None:
            announcer.prepare(menu_phrases())
        elif name != self.game:  # the first game's phrases are being prepared already
            announcer.prepare_game(name, self.games.settings(name), self.config)

    def switched(self, name: str | None) -> None:
        self.prepare(name)
        if name is not None and self.phones.phone is not None and game_spec(name).private_colors:
            self.box.say(self.phones.announced() or "")  # a new game has a new PIN

    def start(self) -> Ear:
        """The menu or the game, greeted (a game resumed by itself: nobody was asked); the ear
        for what is said to it."""
        box, game = self.box, self.game
        unfinished = None
        if game is None:
            box.show_menu(ask=False)
        else:
            unfinished = self.games.unfinished(game)
            box.play(self.games.make(game, self.announcer, unfinished))
        ear = self.hearing.ear_for(box.sentences, box.allowed_intents())
        print(f"hearing: {self.hearing.choice.note}", file=sys.stderr, flush=True)
        self.devices.name_a_missing_microphone()
        report_to(box.say)  # "progress is not being saved", spoken as well as printed
        if box.session is not None:
            greet(box.session, unfinished is not None)
        else:
            box.held.start()
        if self.loop_settings.push_to_talk:
            box.say(PUSH_TO_TALK_HINT)
        if self.phones.phone is not None and box.session is not None and box.session.spec.private_colors:
            box.say(self.phones.announced() or "")
        self.announcer.follow(box)  # BSat1 glitches more as the countdown runs out
        return ear

    def run(self) -> int:
        ear = self.start()
        mic = self.devices.mic if self.meanwhile is None else MicOrTyping(self.devices.mic, self.meanwhile)
        loop = LiveLoop(self.box, ear, mic, self.announcer.speaking, self.keypad, self.loop_settings,
                        rescan=self.devices.rescan, ear_for=self.hearing.ear_for, on_state=self.light)
        try:
            loop.run()
        except KeyboardInterrupt:
            print("Stopped. The game is saved; `assistant play` resumes it.", file=sys.stderr)
        finally:
            report_to(None)
            self.announcer.close()
            if self.light is not None:
                self.light.close()
        return 0


def run_live(game: str | None, config: Config, games: Games, volume: Volume, power: Power) -> int:
    """Hands-free play of ``game``, or of the spoken menu's choices (``game`` None)."""
    return HandsFree(game, config, games, volume, power).run()


def phone_keypad(keypad: Keypad | None) -> PhoneKeypad | None:
    """The phone keypad among the keypads in use, if any."""
    from assistant.phone import PhoneKeypad

    return next((k for k in members(keypad) if isinstance(k, PhoneKeypad)), None)


def phone_announced(phone: PhoneKeypad, out: TextIO | None = None) -> str:
    """What BSat1 says of the phone keypad (its address and PIN), also shown on the terminal
    (``out``) with a QR code. The keypad serves before its address is read: with ``phone.port: 0``
    the port is the one the system gave it (a keypad only tried by ``working`` has none). The
    live loop's start, later, hands it the presses: none is taken while BSat1 speaks."""
    if not phone.serving:
        phone.start(lambda button: None)
    said = phone.spoken_announcement()  # first: a game just started has a new PIN
    phone.show(out)
    return said


def hand_over_said(phone: PhoneKeypad, color: str) -> str:
    """Give ``color`` to the phone waiting for it; what the table hears."""
    return phone_handed_over_said(color, phone.hand_over(color))
