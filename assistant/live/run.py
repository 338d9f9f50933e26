"""``assistant play GAME`` with no flags: hands-free, microphone and keypad in, voices out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from assistant.config import Config
from assistant.games import game_spec
from assistant.journal import find_unfinished, report_to
from assistant.live.keypad import KeypadError, open_keypad
from assistant.live.loop import LISTEN_MODES, LiveLoop, LiveSettings
from assistant.live.microphone import Microphone
from assistant.session import Session

#: Said once after the start (or resume) when ``listen: push-to-talk``.
PUSH_TO_TALK_HINT = "Press the talk key, then speak."


def live_settings(config: Config) -> LiveSettings:
    d = LiveSettings()
    return LiveSettings(
        block_seconds=config.get("live.block_seconds", d.block_seconds, minimum=0.05, maximum=0.5),
        mute_tail_seconds=config.get("live.mute_tail_seconds", d.mute_tail_seconds, minimum=0.0, maximum=3.0),
        answer_early=config.get("live.answer_early", d.answer_early),
        early_steady_blocks=config.get("live.early_steady_blocks", d.early_steady_blocks, minimum=1, maximum=10),
        retry_seconds=config.get("live.retry_seconds", d.retry_seconds, minimum=0.2),
        listen=config.get("listen", d.listen, choices=LISTEN_MODES),
        talk_seconds=config.get("live.talk_seconds", d.talk_seconds, minimum=1.0, maximum=60.0),
    )


def run_live(game: str, seed: int | None, config: Config, settings: dict[str, Any], folder: Path,
             idle: float | None, resume: bool, new: bool) -> int:
    from assistant.hearing import HearingSettings, choose, open_ear, preload_whisper
    from assistant.hearing.vosk_engine import ModelError
    from assistant.voice.announcer import SpokenAnnouncer
    from assistant.voice.playback import rescan_devices

    hearing = HearingSettings.from_config(config)
    choice = choose(hearing)
    if "whisper" in (choice.engine, choice.second):
        preload_whisper(hearing)  # first, while the process is small: loading it briefly takes twice its size
    loop_settings = live_settings(config)
    keypad = open_keypad(config)
    if loop_settings.push_to_talk and keypad is not None:
        # Only what is said after a talk press is heard, so table talk cannot reach the ear:
        # no need to doubt commands for sounding unlike themselves, nor to veto them.
        hearing.phone_check = hearing.early_phone_check = 0.0
        hearing.veto = False
    settings = game_spec(game).live_settings(settings, config, keypad is not None)
    for problem in config.problems:
        print(f"config: {problem}", file=sys.stderr)
    config.problems.clear()
    announcer = SpokenAnnouncer.from_config(config, echo=True, game=game, settings=settings)
    mic = Microphone(config.get("live.input_device", ""), loop_settings.block_seconds)

    def rescan() -> None:
        # PortAudio lists devices only when it starts; restarting it needs every stream closed.
        mic.close()
        announcer.release_output()
        rescan_devices()

    announcer.keep_trying(loop_settings.retry_seconds, before_reopen=rescan)  # nobody reads a screen
    unfinished = None if new else find_unfinished(folder, game)
    if unfinished is not None:
        session = Session.resume(unfinished, announcer, idle)
    else:
        session = Session.new(game, seed, settings, announcer, folder, idle)
    def warn(message: str) -> None:
        print(f"hearing: {message}", file=sys.stderr)

    try:
        ear = open_ear(hearing, session.sentences, session.allowed_intents(), choice.name, warn=warn)
    except ModelError as error:
        warn(f"{error} Using PocketSphinx instead.")
        ear = open_ear(hearing, session.sentences, session.allowed_intents(), "pocketsphinx", warn=warn)
    print(f"hearing: {choice.note}", file=sys.stderr, flush=True)
    if keypad is not None:
        try:
            keypad.start(lambda button: None)
            keypad.stop()
        except (KeypadError, OSError) as error:
            print(f"keypad: {error} Playing without it: secret codes can be spoken, shots are random.",
                  file=sys.stderr)
            keypad = None
    if loop_settings.push_to_talk and keypad is None:
        print("listen: push-to-talk needs a keypad to talk with; listening always instead.", file=sys.stderr)
        loop_settings.listen = "always"
    report_to(session.say)  # "progress is not being saved", spoken as well as printed
    if unfinished is not None:
        session.resumed("Say new game to start over.")  # resumed by itself: nobody was asked
    else:
        session.start()
    if loop_settings.push_to_talk:
        session.say(PUSH_TO_TALK_HINT)
    announcer.follow(session)  # BSat1 glitches more as the countdown runs out
    loop = LiveLoop(session, ear, mic, announcer.speaking, keypad, loop_settings, rescan=rescan)
    try:
        loop.run()
    except KeyboardInterrupt:
        print("Stopped. The game is saved; `assistant play` resumes it.", file=sys.stderr)
    finally:
        announcer.close()
    return 0
