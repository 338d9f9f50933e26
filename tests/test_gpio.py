"""GPIO buttons and the status light (``keypad.source: gpio``), on gpiozero's mock pins:
presses on the pins become private inputs of a real Omega Virus session run by the real
live loop, the talk button gates listening, and the LED follows the loop's states. On this
machine (no GPIO) opening them says so in a sentence."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from assistant.config import Config
from assistant.games.omega_virus.engine import CommandCenter
from assistant.hearing.recognizer import Ear
from assistant.hearing.text_engine import TextRecognizer
from assistant.live.gpio import (
    DEFAULT_LED_PIN,
    DEFAULT_PINS,
    DEFAULT_TALK_PIN,
    LIGHT_PATTERNS,
    GpioKeypad,
    StatusLight,
    gpio_settings,
    open_status_light,
)
from assistant.live.keypad import TALK, KeypadError, PressQueue
from assistant.live.keypads import open_keypad
from assistant.live.loop import STATES, TALK_CUE, LiveLoop, LiveSettings
from assistant.session import Session
from tests.live_helpers import said_and_passed
from tests.test_live_push_to_talk import FakeMic, Table

GPIO_CONFIG = "keypad:\n  source: gpio\n"


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    """gpiozero's mock pins (a Raspberry Pi 3B's header) for one test, then the default again."""
    before = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        factory.close()
        Device.pin_factory = before


def tap(factory: MockFactory, gpio: int) -> None:
    """A press and release of the button on ``gpio`` (wired to ground, pulled up)."""
    pin = factory.pin(gpio)
    pin.drive_low()
    time.sleep(0.01)
    pin.drive_high()
    time.sleep(0.07)  # longer than the bounce time between presses of one button


def wait_until(condition: object, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


# ------------------------------------------------------------------- settings


def test_default_pins_keep_clear_of_sound_hats_and_of_each_other() -> None:
    config = Config.from_text(GPIO_CONFIG)
    settings = gpio_settings(config)
    assert settings is not None and config.problems == []
    assert settings.pins == DEFAULT_PINS and settings.talk == DEFAULT_TALK_PIN and settings.led == DEFAULT_LED_PIN
    used = [*settings.pins.values(), settings.talk, settings.led]
    assert len(set(used)) == 6
    assert not set(used) & {2, 3, 7, 8, 9, 10, 11, 14, 15, 18, 19, 20, 21}  # I2C, SPI, UART, I2S


def test_the_shipped_config_yaml_has_the_defaults() -> None:
    config = Config.load(Path(__file__).resolve().parent.parent / "config.yaml")
    settings = gpio_settings(config)
    assert settings is not None and config.problems == []
    assert settings.pins == DEFAULT_PINS and settings.talk == DEFAULT_TALK_PIN and settings.led == DEFAULT_LED_PIN


def test_bad_pins_are_named_and_the_buttons_are_off() -> None:
    config = Config.from_text(GPIO_CONFIG + '  gpio:\n    pins: {"0": 5, "1": 40, "2": GPIO13, X: 4}\n')
    assert gpio_settings(config) is None
    assert open_keypad(Config.from_text(config_text := GPIO_CONFIG + '  gpio:\n    pins: {"0": 5, "1": 5, '
                                        '"2": 13, R: 26}\n')) is None
    text = "\n".join(config.problems)
    assert "keypad.gpio.pins.1 = 40 is not a GPIO number of the 40-pin header (BCM numbering, 0 to 27" in text
    assert "'X' is not a button (0, 1, 2 or R); left out." in text
    assert "keypad.gpio.pins has no pin for button R; the GPIO buttons are off." in text
    assert "GPIO13" not in text  # "GPIO13" is a fine way to write 13
    doubled = Config.from_text(config_text)
    assert gpio_settings(doubled) is None
    assert "GPIO 5 is given to both button 0 and button 1; each needs its own pin" in doubled.problems[0]
    assert "line 3" in doubled.problems[0]


def test_a_bad_talk_or_led_pin_leaves_out_only_that_one() -> None:
    config = Config.from_text(GPIO_CONFIG + "  gpio:\n    talk: nine\n    led: ''\n")
    settings = gpio_settings(config)
    assert settings is not None and settings.talk is None and settings.led is None
    assert len(config.problems) == 1 and "keypad.gpio.talk = 'nine' is not a GPIO number" in config.problems[0]
    clash = Config.from_text(GPIO_CONFIG + "  gpio:\n    talk: 12\n")
    assert gpio_settings(clash) is None and "both the talk button and the LED" in clash.problems[0]


def test_open_keypad_gives_the_gpio_keypad() -> None:
    config = Config.from_text(GPIO_CONFIG + "  gpio:\n    talk: ''\n    bounce_seconds: 0.1\n")
    keypad = open_keypad(config)
    assert isinstance(keypad, GpioKeypad) and config.problems == []
    assert dict(keypad.pins) == DEFAULT_PINS and keypad.talk is None and keypad.bounce_seconds == 0.1


def test_push_to_talk_without_a_talk_button_is_a_problem() -> None:
    config = Config.from_text("listen: push-to-talk\n" + GPIO_CONFIG + "  gpio:\n    talk: ''\n")
    assert isinstance(open_keypad(config), GpioKeypad)
    assert len(config.problems) == 1
    assert "listen is push-to-talk, but keypad.gpio.talk names no talk button" in config.problems[0]
    assert open_keypad(Config.from_text("listen: push-to-talk\n" + GPIO_CONFIG)) is not None


@pytest.mark.skipif(Path("/proc/device-tree/model").exists()
                    and "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace"),
                    reason="this machine has real GPIO")
def test_no_gpio_here_is_one_sentence_and_play_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    keypad = open_keypad(Config.from_text(GPIO_CONFIG))
    assert isinstance(keypad, GpioKeypad)
    with pytest.raises(KeypadError) as raised:
        keypad.start(lambda button: None)  # what hands-free play does first, to check the keypad
    assert str(raised.value).startswith("No GPIO pins here: gpiozero found no pin library that works on this "
                                        "machine")
    assert "lgpio" in str(raised.value) and "\n" not in str(raised.value)
    keypad.stop()
    config = Config.from_text(GPIO_CONFIG)
    assert open_status_light(config) is None
    assert config.problems == [f"keypad.gpio.led: {raised.value} The status light is off."]


def test_without_gpiozero_installed_it_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "gpiozero", None)  # what an import of a missing package finds
    with pytest.raises(KeypadError, match=r"gpiozero is not installed: \.venv/bin/pip install gpiozero"):
        GpioKeypad(DEFAULT_PINS).start(lambda button: None)
    config = Config.from_text(GPIO_CONFIG)
    assert open_status_light(config) is None
    assert "gpiozero is not installed" in config.problems[0] and "The status light is off." in config.problems[0]


# ------------------------------------------------------------------- buttons


def test_each_pin_is_its_button(pins: MockFactory) -> None:
    presses = PressQueue()
    keypad = GpioKeypad(DEFAULT_PINS, talk=DEFAULT_TALK_PIN)
    keypad.start(presses)
    try:
        for gpio in (6, 13, 26, 5, 16):
            tap(pins, gpio)
        assert presses.drain() == ["1", "2", "R", "0", TALK]
        pins.pin(5).drive_low()  # held down: one press, not many
        time.sleep(0.2)
        pins.pin(5).drive_high()
        assert presses.drain() == ["0"]
    finally:
        keypad.stop()
    tap(pins, 5)
    assert presses.drain() == []  # stopped: the pins are let go
    keypad.start(presses)  # and can be taken again (hands-free play starts it twice)
    tap(pins, 26)
    keypad.stop()
    assert presses.drain() == ["R"]


def test_contact_bounce_is_one_press(pins: MockFactory) -> None:
    presses = PressQueue()
    keypad = GpioKeypad(DEFAULT_PINS, bounce_seconds=0.05)
    keypad.start(presses)
    try:
        pin = pins.pin(6)
        for _ in range(4):  # a bouncing contact: four closures within a few milliseconds
            pin.drive_low()
            pin.drive_high()
        assert presses.drain() == ["1"]  # mock pins call back in drive_low, before it returns
    finally:
        keypad.stop()


def test_a_pin_taken_by_something_else_is_a_keypad_error(pins: MockFactory) -> None:
    from gpiozero import LED

    other = LED(13)
    keypad = GpioKeypad(DEFAULT_PINS)
    try:
        with pytest.raises(KeypadError, match="A GPIO pin is taken by something else: pin GPIO13 is already in use"):
            keypad.start(lambda button: None)
        assert keypad._devices == []  # the pins it had taken are let go
    finally:
        other.close()


# --------------------------------------------------------- a real game session


def gpio_loop(config_text: str, **settings: object) -> tuple[LiveLoop, Table, GpioKeypad]:
    """A new Omega Virus game (seed 1) driven by the live loop: words typed into a fake
    microphone, presses from the GPIO keypad that config_text sets up."""
    table = Table()
    session = Session.new("omega-virus", 1, {}, table, None)
    session.start()
    ear = Ear(TextRecognizer(), session.sentences, session.allowed_intents())
    config = Config.from_text(config_text)
    keypad = open_keypad(config)
    assert isinstance(keypad, GpioKeypad) and config.problems == []
    loop = LiveLoop(session, ear, FakeMic(), table.speaking, keypad,
                    LiveSettings(**{"mute_tail_seconds": 0.0, **settings}),  # type: ignore[arg-type]
                    log=lambda message: None)
    return loop, table, keypad


def running(loop: LiveLoop) -> tuple[threading.Event, threading.Thread]:
    stop = threading.Event()
    runner = threading.Thread(target=loop.run, args=(stop,), daemon=True)
    runner.start()
    assert wait_until(lambda: loop.keypad is not None and bool(getattr(loop.keypad, "_devices", None)))
    time.sleep(2 * loop.settings.block_seconds)  # "Enter skill." just ended: the microphone is dropped meanwhile
    return stop, runner


def speak(loop: LiveLoop, words: str) -> None:
    mic = loop.mic
    assert isinstance(mic, FakeMic)
    mic.blocks.put(words.encode())


def test_buttons_enter_secret_codes_and_the_attackers_shot(pins: MockFactory) -> None:
    loop, table, _ = gpio_loop(GPIO_CONFIG)
    stop, runner = running(loop)
    try:
        speak(loop, "skill zero\n")
        assert wait_until(lambda: table.lines[-1:] == ["BSAT1: Red, enter secret code."])
        tap(pins, 6)   # 1
        tap(pins, 13)  # 2
        assert wait_until(lambda: table.lines[-1:] == ["BSAT1: Blue, enter secret code."])
        tap(pins, 13)  # 2
        tap(pins, 5)   # 0
        assert wait_until(lambda: table.lines[-1:] == ["BSAT1: Green, enter secret code."])
        tap(pins, 26)  # R: skip
        assert wait_until(lambda: table.lines[-1:] == ["BSAT1: Yellow, enter secret code."])
        tap(pins, 26)
        assert wait_until(lambda: "VIRUS: 25 minutes until I take over!" in table.lines)  # two players, skill 0
        session = loop.session
        assert isinstance(session, Session) and isinstance(session.game, CommandCenter)
        game = session.game
        assert (game.players["red"].code, game.players["blue"].code) == ("12", "20")
        assert not game.players["green"].playing and not game.players["yellow"].playing
        assert not any("12" in line or "one two" in line.lower() for line in table.lines)  # never spoken
        assert game.mover is not None
        attacker = game.mover[0]
        target = "red" if attacker == "blue" else "blue"
        time.sleep(0.2)
        speak(loop, f"attack the {target} commando\n")
        assert wait_until(lambda: table.lines[-1:] == [
            f"VIRUS: {attacker.title()} is attacking {target.title()}. Take your best shot!"]), table.lines
        tap(pins, 26)  # the shot, hidden behind the other hand
        assert wait_until(lambda: table.lines[-1].startswith(f"BSAT1: {target.title()}, energize")), table.lines
        assert game.defense is not None and game.defense.hidden == "R"
    finally:
        stop.set()
        runner.join(timeout=5)
    assert not runner.is_alive()


def test_the_talk_button_gates_listening(pins: MockFactory) -> None:
    loop, table, keypad = gpio_loop(GPIO_CONFIG, listen="push-to-talk")
    assert keypad.talk == DEFAULT_TALK_PIN
    stop, runner = running(loop)
    try:
        assert isinstance(loop.mic, FakeMic)
        said_and_passed(loop.mic, "skill zero\n")
        assert "BSAT1: Red, enter secret code." not in table.lines  # no press: not listened to
        tap(pins, DEFAULT_TALK_PIN)
        assert wait_until(lambda: table.lines[-1:] == [TALK_CUE.line()])
        time.sleep(0.3)  # a block that held some of the cue is dropped
        speak(loop, "skill zero\n")
        assert wait_until(lambda: table.lines[-1:] == ["BSAT1: Red, enter secret code."])
        tap(pins, 6)  # buttons are buttons in push-to-talk too
        tap(pins, 6)
        assert wait_until(lambda: table.lines[-1:] == ["BSAT1: Blue, enter secret code."])
        said_and_passed(loop.mic, "skip\n")  # one utterance per press: this is not heard
        assert table.lines[-1] == "BSAT1: Blue, enter secret code."
    finally:
        stop.set()
        runner.join(timeout=5)


# ---------------------------------------------------------------------- light


class StepClock:
    """The status light's clock in a test: each wait is recorded (was the LED lit, for how long)
    and returns at once, until ``count`` more have been recorded (``arm``); then the light's
    thread waits there until it is stopped, and ``enough`` is set."""

    def __init__(self, factory: MockFactory, gpio: int) -> None:
        self.pin = factory.pin(gpio)
        self.waits: list[tuple[bool, float]] = []
        self.until = 0
        self.enough = threading.Event()

    def arm(self, count: int) -> None:
        self.until = len(self.waits) + count
        self.enough.clear()

    def __call__(self, stop: threading.Event, seconds: float) -> bool:
        self.waits.append((bool(self.pin.state), seconds))
        if len(self.waits) < self.until:
            return stop.is_set()
        self.enough.set()
        return stop.wait()

    def blinks(self, count: int) -> list[tuple[bool, float]]:
        """The last ``count`` waits, once they are there."""
        assert self.enough.wait(5), self.waits
        return self.waits[-count:]


def test_no_light_unless_a_gpio_box_has_an_led_pin(pins: MockFactory) -> None:
    assert open_status_light(Config.from_text("")) is None  # a terminal keypad: no light
    assert open_status_light(Config.from_text(GPIO_CONFIG + "  gpio:\n    led: ''\n")) is None
    light = open_status_light(Config.from_text(GPIO_CONFIG))
    assert isinstance(light, StatusLight)
    light.close()
    assert set(LIGHT_PATTERNS) == set(STATES)


def test_the_light_shows_each_state(pins: MockFactory) -> None:
    """On while listening; a slow even blink while speaking, a fast one for a problem, a short
    blip every 3 s while paused: what the LED is told, step by step, on an injected clock."""
    clock = StepClock(pins, 4)
    light = open_status_light(Config.from_text(GPIO_CONFIG + "  gpio:\n    led: 4\n"), clock)
    assert light is not None
    pin = pins.pin(4)
    try:
        light("listening")
        assert pin.state and clock.waits == []
        clock.arm(4)
        light("speaking")
        (lit, on), (dark, off), *again = clock.blinks(4)
        assert lit and not dark and on == off and 0.4 <= on <= 0.7 and again == [(True, on), (False, off)]
        clock.arm(4)
        light("problem")
        (lit, on), (dark, off), *again = clock.blinks(4)
        assert lit and not dark and on == off and on <= 0.2 and again == [(True, on), (False, off)]
        clock.arm(2)
        light("paused")
        (lit, on), (dark, off) = clock.blinks(2)
        assert lit and not dark and on <= 0.1 and on + off == pytest.approx(3.0)
        assert not pin.state  # between blips
        light("listening")
        assert pin.state
        light("no such state")
        assert pin.state
    finally:
        light.close()
    assert not pin.state


def test_the_light_follows_the_live_loop(pins: MockFactory) -> None:
    loop, table, _ = gpio_loop(GPIO_CONFIG + "  gpio:\n    talk: ''\n")
    clock = StepClock(pins, DEFAULT_LED_PIN)
    light = open_status_light(Config.from_text(GPIO_CONFIG), clock)
    assert light is not None
    seen: list[str] = []

    def on_state(state: str) -> None:
        light(state)
        seen.append(state)  # after the light changed: the test reads the pin once it sees the state

    loop.on_state = on_state
    led = pins.pin(DEFAULT_LED_PIN)
    stop, runner = running(loop)
    try:
        assert wait_until(lambda: seen[-1:] == ["listening"]) and led.state
        clock.arm(4)
        table.speaking.begin()  # the assistant talks
        assert wait_until(lambda: seen[-1:] == ["speaking"])
        assert [lit for lit, _ in clock.blinks(4)] == [True, False, True, False]  # blinking
        table.speaking.end()
        assert wait_until(lambda: seen[-1:] == ["listening"]) and led.state
        time.sleep(0.2)  # what the microphone heard while it spoke is dropped
        clock.arm(2)
        speak(loop, "pause\n")
        assert wait_until(lambda: seen[-1:] == ["paused"])
        assert [lit for lit, _ in clock.blinks(2)] == [True, False] and not led.state  # dark between blips
        time.sleep(0.2)  # as after speaking: the block that held the end of "pause" is dropped
        speak(loop, "resume\n")
        assert wait_until(lambda: seen[-1:] == ["listening"]) and led.state
        clock.arm(4)
        table.speaking.problem = "The speaker is unplugged."
        assert wait_until(lambda: seen[-1:] == ["problem"])
        problem = LIGHT_PATTERNS["problem"]
        assert problem is not None
        assert clock.blinks(4) == [(True, problem[0]), (False, problem[1])] * 2  # the fast blink
    finally:
        stop.set()
        runner.join(timeout=5)
        light.close()
    assert "speaking" in seen and "paused" in seen and "problem" in seen


# ------------------------------------------------------------------- doctor


def doctor(tmp_path: Path, **env: str) -> str:
    import os
    import subprocess
    import sys

    config = tmp_path / "config.yaml"
    config.write_text(GPIO_CONFIG + "  gpio:\n    talk: ''\n    led: 4\n", encoding="utf-8")
    environment = {key: value for key, value in os.environ.items() if key != "GPIOZERO_PIN_FACTORY"}
    done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "doctor"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**environment, "HOME": str(tmp_path), **env})
    return done.stdout


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="this machine may have real GPIO")
def test_doctor_names_the_pins_or_says_there_is_no_gpio(tmp_path: Path) -> None:
    here = doctor(tmp_path)
    assert "  PROBLEM  private presses: No GPIO pins here: gpiozero found no pin library" in here
    assert "  PROBLEM  status light: No GPIO pins here" in here and "Traceback" not in here
    mocked = doctor(tmp_path, GPIOZERO_PIN_FACTORY="mock")  # gpiozero's own mock pins, by its setting
    assert ("  ok       private presses: GPIO buttons 0 on GPIO5, 1 on GPIO6, 2 on GPIO13, R on GPIO26; "
            "no talk button\n") in mocked
    assert "  ok       status light: LED on GPIO4\n" in mocked
