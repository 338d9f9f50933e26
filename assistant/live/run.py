"""``assistant play [GAME]`` with no flags: hands-free, microphone and keypad in, voices out.

With no game, the spoken menu asks which; the box (assistant/box.py) holds the menu or the
game, and the loop gets an ear for the new sentences whenever that changes."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TextIO

from assistant.box import Box, Games, Power, greet, phone_handed_over_said, phone_waiting_said
from assistant.config import Config
from assistant.games import game_spec
from assistant.hearing.recognizer import Ear
from assistant.journal import report_to
from assistant.live.gpio import open_status_light
from assistant.live.keypad import Keypad
from assistant.live.keypads import members, open_keypad, working
from assistant.live.loop import LiveLoop, LiveSettings
from assistant.live.microphone import Microphone
from assistant.menu import menu_phrases
from assistant.sentences import SentenceSet
from assistant.volume import Volume

if TYPE_CHECKING:
    from assistant.hearing import HearingSettings
    from assistant.phone import PhoneKeypad  # imported when one is used: it brings aiohttp

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
    return LiveSettings(
        block_seconds=config.value("live.block_seconds"),
        mute_tail_seconds=config.value("live.mute_tail_seconds"),
        answer_early=config.value("live.answer_early"),
        early_steady_blocks=config.value("live.early_steady_blocks"),
        retry_seconds=config.value("live.retry_seconds"),
        listen=config.value("listen"),
        talk_seconds=config.value("live.talk_seconds"),
    )


def hear_pushed_to_talk(hearing: HearingSettings) -> None:
    """Only what is said after a talk press is heard, so table talk cannot reach the ear: no
    need to doubt commands for sounding unlike themselves, nor to veto them; and Whisper's last
    try (``as_sentences``), off when listening always for the table talk it takes, is all gain."""
    hearing.phone_check = hearing.early_phone_check = 0.0
    hearing.veto = False
    hearing.as_sentences = True


def run_live(game: str | None, config: Config, games: Games, volume: Volume, power: Power) -> int:
    """Hands-free play of ``game``, or of the spoken menu's choices (``game`` None)."""
    from assistant.hearing import HearingSettings, ModelError, choose, open_ear, preload_whisper
    from assistant.voice.announcer import SpokenAnnouncer
    from assistant.voice.playback import rescan_devices

    hearing = HearingSettings.from_config(config)
    choice = choose(hearing)
    if "whisper" in (choice.engine, choice.second):
        preload_whisper(hearing)  # first, while the process is small: loading it briefly takes twice its size
    loop_settings = live_settings(config)
    keypad = working(open_keypad(config), lambda problem: print(
        f"keypad: {problem} Playing without it: secret codes can be spoken, shots are random.", file=sys.stderr))
    if loop_settings.push_to_talk and keypad is not None:
        hear_pushed_to_talk(hearing)
    if loop_settings.push_to_talk and keypad is None:
        print("listen: push-to-talk needs a keypad to talk with; listening always instead.", file=sys.stderr)
        loop_settings.listen = "always"
    light = open_status_light(config)  # the box's LED (GPIO), if it has one
    text_settings = games.settings_for
    games = replace(games, settings_for=lambda name: game_spec(name).live_settings(
        text_settings(name), config, keypad is not None))
    settings = games.settings(game) if game else None
    for problem in config.problems:
        print(f"config: {problem}", file=sys.stderr)
    config.problems.clear()
    announcer = SpokenAnnouncer.from_config(config, echo=True, game=game, settings=settings)
    mic = Microphone(config.value("live.input_device"), loop_settings.block_seconds)

    def rescan() -> None:
        # PortAudio lists devices only when it starts; restarting it needs every stream closed.
        mic.close()
        announcer.release_output()
        rescan_devices()

    announcer.keep_trying(loop_settings.retry_seconds, before_reopen=rescan)  # nobody reads a screen
    warned: set[str] = set()

    def warn(message: str) -> None:
        if message not in warned:  # the same warning again for the next game's ear is no news
            warned.add(message)
            print(f"hearing: {message}", file=sys.stderr, flush=True)

    engine = [choice.name]

    def ear_for(sentences: SentenceSet, intents: Iterable[str]) -> Ear:
        try:
            return open_ear(hearing, sentences, intents, engine[0], warn=warn)
        except ModelError as error:
            warn(f"{error} Using PocketSphinx instead.")
            engine[0] = "pocketsphinx"
            return open_ear(hearing, sentences, intents, "pocketsphinx", warn=warn)

    def prepare(name: str | None) -> None:
        if announcer.voices is None or not announcer.voices.settings.render_at_start:
            return
        if name is None:
            announcer.prepare(menu_phrases())
        elif name != game:  # the first game's phrases are being prepared already
            announcer.prepare_game(name, games.settings(name), config)

    phone = phone_keypad(keypad)

    def announce_phone() -> str | None:
        return None if phone is None else phone_announced(phone)

    def switched(name: str | None) -> None:
        prepare(name)
        if name is not None and phone is not None and game_spec(name).private_colors:
            box.say(announce_phone() or "")  # a new game has a new PIN

    def hand_over(color: str) -> str | None:
        return None if phone is None else hand_over_said(phone, color)

    box = TableBox(announcer, games, volume, power, menu_after_game=game is None, on_volume=announcer.set_gain,
                   on_switch=switched, on_phone=announce_phone if phone is not None else None,
                   on_hand_over=hand_over if phone is not None else None, phone=phone)
    if phone is not None:
        phone.follow(lambda: box.session, busy=lambda: announcer.speaking.busy(loop_settings.mute_tail_seconds))
    unfinished = None
    if game is None:
        box.show_menu(ask=False)
    else:
        unfinished = games.unfinished(game)
        box.play(games.make(game, announcer, unfinished))
    ear = ear_for(box.sentences, box.allowed_intents())
    print(f"hearing: {choice.note}", file=sys.stderr, flush=True)
    report_to(box.say)  # "progress is not being saved", spoken as well as printed
    if box.session is not None:
        greet(box.session, unfinished is not None)  # resumed by itself: nobody was asked
    else:
        box.held.start()
    if loop_settings.push_to_talk:
        box.say(PUSH_TO_TALK_HINT)
    if phone is not None and box.session is not None and box.session.spec.private_colors:
        box.say(announce_phone() or "")
    announcer.follow(box)  # BSat1 glitches more as the countdown runs out
    loop = LiveLoop(box, ear, mic, announcer.speaking, keypad, loop_settings, rescan=rescan, ear_for=ear_for,
                    on_state=light)
    try:
        loop.run()
    except KeyboardInterrupt:
        print("Stopped. The game is saved; `assistant play` resumes it.", file=sys.stderr)
    finally:
        report_to(None)
        announcer.close()
        if light is not None:
            light.close()
    return 0


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
