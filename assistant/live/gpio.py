"""Buttons and a status light on the Raspberry Pi's GPIO header (``keypad.source: gpio``).

Four push buttons are the Command Center's keys 0, 1, 2 and R; an optional fifth is the
talk button (push-to-talk); an optional LED shows what the assistant is doing. Each button
connects its GPIO pin to ground (the pin's own pull-up holds it high until pressed); the
LED goes from its pin through a resistor to ground. Pins are BCM GPIO numbers, set under
``keypad.gpio`` in config.yaml; the defaults keep clear of I2C (2, 3), SPI (7-11), the
UART (14, 15) and I2S (18-21), which sound HATs use (docs/raspberry-pi.md has the table).

gpiozero drives the pins; on a machine with no GPIO it says so in a sentence, not a
traceback, and play goes on without the buttons or the light.
"""

from __future__ import annotations

import functools
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assistant.config import Config
from assistant.live.keypad import TALK, KeypadError
from assistant.live.settings import keypad_sources

BUTTONS = ("0", "1", "2", "R")
#: BCM GPIO numbers: physical pins 29, 31, 33 and 37 (grounds at 30, 34 and 39 beside them).
DEFAULT_PINS: dict[str, int] = {"0": 5, "1": 6, "2": 13, "R": 26}
#: The talk button (physical pin 36) and the status LED (physical pin 32).
DEFAULT_TALK_PIN = 16
DEFAULT_LED_PIN = 12
#: The GPIO numbers on the 40-pin header.
HEADER_GPIOS = range(0, 28)

#: How the light shows each state of the live loop: None = steadily on, (on, off) seconds
#: = blinking, () = off.
LIGHT_PATTERNS: dict[str, tuple[float, ...] | None] = {
    "listening": None,            # on: say a command
    "speaking": (0.5, 0.5),       # slow blink: it is talking, presses and speech wait
    "paused": (0.05, 2.95),       # a short blip every 3 s: paused, alive
    "problem": (0.1, 0.1),        # fast blink: a microphone or speaker is missing
}


@dataclass(frozen=True)
class GpioSettings:
    pins: dict[str, int]          # button -> BCM GPIO
    talk: int | None
    led: int | None
    pull_up: bool
    bounce_seconds: float
    led_active_high: bool


def _pin(config: Config, key: str, value: Any, what: str) -> int | None:
    """A BCM GPIO number from the setting ``key`` (``what`` names it in the message), or
    None with a problem reported."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        text = value.strip().upper().removeprefix("GPIO").removeprefix("BCM")
        number = int(text) if text.isdigit() else None
    if number is None or number not in HEADER_GPIOS:
        config.problems.append(f"{config.where(key)}: {what} = {value!r} is not a GPIO number of the 40-pin "
                               f"header (BCM numbering, 0 to 27; e.g. {DEFAULT_PINS['0']} is physical pin 29).")
        return None
    return number


def gpio_settings(config: Config) -> GpioSettings | None:
    """``keypad.gpio``, checked: None (with the reasons in ``config.problems``) when the four
    buttons cannot all be used. A bad talk or LED pin leaves only that one out."""
    section = "keypad.gpio"
    raw_pins = config.raw(f"{section}.pins", None)
    if raw_pins is None:
        raw_pins = dict(DEFAULT_PINS)
    if not isinstance(raw_pins, dict):
        config.problems.append(f"{config.where(section + '.pins')}: keypad.gpio.pins must map each button "
                               f"(0, 1, 2, R) to a GPIO number, e.g. {DEFAULT_PINS}; the GPIO buttons are off.")
        return None
    given = {str(k).upper(): v for k, v in raw_pins.items()}
    pins: dict[str, int] = {}
    ok = True
    for name in given:
        if name not in BUTTONS:
            config.problems.append(f"{config.where(section + '.pins')}: keypad.gpio.pins: {name!r} is not a button "
                                   "(0, 1, 2 or R); left out.")
    for button in BUTTONS:
        if button not in given:
            config.problems.append(f"{config.where(section + '.pins')}: keypad.gpio.pins has no pin for button "
                                   f"{button}; the GPIO buttons are off.")
            ok = False
            continue
        number = _pin(config, f"{section}.pins.{button}", given[button], f"keypad.gpio.pins.{button}")
        if number is None:
            ok = False
        else:
            pins[button] = number
    talk = _optional_pin(config, f"{section}.talk", DEFAULT_TALK_PIN)
    led = _optional_pin(config, f"{section}.led", DEFAULT_LED_PIN)
    taken: dict[int, str] = {}
    for what, number in [*((f"button {b}", p) for b, p in pins.items()), ("the talk button", talk),
                         ("the LED", led)]:
        if number is None:
            continue
        if number in taken:
            config.problems.append(f"{config.where(section)}: keypad.gpio: GPIO {number} is given to both "
                                   f"{taken[number]} and {what}; each needs its own pin. The GPIO buttons are off.")
            ok = False
        taken[number] = what
    if not ok:
        return None
    pull_up = config.value(f"{section}.pull_up")
    bounce = config.value(f"{section}.bounce_seconds")
    active_high = config.value(f"{section}.led_active_high")
    return GpioSettings(pins, talk, led, pull_up, bounce, active_high)


def _optional_pin(config: Config, key: str, default: int) -> int | None:
    """An optional pin: unset = ``default``; "" or null (written out) = none."""
    if not config.has(key):
        return default
    value = config.raw(key)
    if value is None or value == "" or value is False:
        return None
    return _pin(config, key, value, key)


NO_GPIOZERO = "The GPIO library gpiozero is not installed: .venv/bin/pip install gpiozero"


def no_gpio_message(error: BaseException) -> str:
    """What to tell when gpiozero cannot reach the pins."""
    name = type(error).__name__
    if name == "BadPinFactory":
        return ("No GPIO pins here: gpiozero found no pin library that works on this machine (this is not a "
                "Raspberry Pi, or its GPIO library is missing: .venv/bin/pip install 'lgpio>=0.2'; see GPIO in "
                "docs/raspberry-pi.md).")
    if name in ("PinInvalidPin", "PinNonPhysical", "PinUnknownPi"):
        return f"A GPIO pin cannot be used: {error}. Check keypad.gpio in config.yaml."
    if name == "GPIOPinInUse":
        return f"A GPIO pin is taken by something else: {error}."
    if isinstance(error, PermissionError):
        return (f"The GPIO pins are not accessible ({error}): add yourself to the gpio group "
                "(sudo usermod -aG gpio $USER, then log in again).")
    return f"The GPIO pins cannot be used ({name}: {error})."


def _gpio_errors() -> tuple[type[BaseException], ...]:
    from gpiozero import GPIOZeroError

    return (GPIOZeroError, OSError, RuntimeError)


def _quietly(make: Callable[[], Any]) -> Any:
    """``make()`` with gpiozero's pin-library fallback warnings silenced (its error says enough)."""
    from gpiozero import PinFactoryFallback

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PinFactoryFallback)
        return make()


@dataclass
class GpioKeypad:
    """The four Command Center buttons (and the talk button) on GPIO pins: a press is
    ``on_press("0")`` ... ``on_press("R")``, or ``on_press(TALK)``. A button that closes
    again within ``bounce_seconds`` of its last press is its contact bouncing, not a press
    (debounced here, on the first edge, so a press is never delayed)."""

    pins: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_PINS))
    talk: int | None = None
    pull_up: bool = True
    bounce_seconds: float = 0.05
    _devices: list[Any] = field(default_factory=list)
    _last: dict[str, float] = field(default_factory=dict)

    def start(self, on_press: Callable[[str], None]) -> None:
        try:
            from gpiozero import Button
        except ImportError as error:
            raise KeypadError(f"{NO_GPIOZERO} ({error})") from error
        wiring = [*self.pins.items(), *([(TALK, self.talk)] if self.talk is not None else [])]
        try:
            for button, pin in wiring:
                device = _quietly(functools.partial(Button, pin, pull_up=self.pull_up, bounce_time=None))
                device.when_pressed = self._pressed(on_press, button)
                self._devices.append(device)
        except _gpio_errors() as error:
            self.stop()
            raise KeypadError(no_gpio_message(error)) from error

    def _pressed(self, on_press: Callable[[str], None], button: str) -> Callable[[], None]:
        """The callback of one button; it takes no arguments (gpiozero looks at its signature)."""

        def pressed() -> None:
            now = time.monotonic()
            last = self._last.get(button)
            self._last[button] = now
            if last is None or now - last >= self.bounce_seconds:
                on_press(button)

        return pressed

    def stop(self) -> None:
        for device in self._devices:
            device.when_pressed = None
            device.close()
        self._devices.clear()


#: How the status light waits: ``wait(stop, seconds)`` is True when told to stop meanwhile.
#: Tests give their own (``threading.Event.wait`` is the real one).
Wait = Callable[[threading.Event, float], bool]


def _wait(stop: threading.Event, seconds: float) -> bool:
    return stop.wait(seconds)


class StatusLight:
    """An LED that follows the live loop's state (:data:`LIGHT_PATTERNS`); call it with the
    state's name. Unknown states leave it as it is. A blinking state is a thread of its own
    that lights and darkens the LED, waiting with ``wait`` in between."""

    def __init__(self, led: Any, wait: Wait = _wait) -> None:
        self.led = led
        self.state: str | None = None
        self._wait = wait
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._blinker: threading.Thread | None = None

    def __call__(self, state: str) -> None:
        if state not in LIGHT_PATTERNS:
            return
        with self._lock:
            if state == self.state or self.led.closed:
                return
            self._stop_blinking()
            self.state = state
            pattern = LIGHT_PATTERNS[state]
            if pattern is None:
                self.led.on()
            elif not pattern:
                self.led.off()
            else:
                self._stop = threading.Event()
                self._blinker = threading.Thread(target=self._blink, args=(pattern[0], pattern[1], self._stop),
                                                 name="status light", daemon=True)
                self._blinker.start()

    def _blink(self, on: float, off: float, stop: threading.Event) -> None:
        while not stop.is_set():
            self.led.on()
            if self._wait(stop, on):
                break
            self.led.off()
            if self._wait(stop, off):
                break

    def _stop_blinking(self) -> None:
        self._stop.set()
        if self._blinker is not None:
            self._blinker.join(timeout=5)
            self._blinker = None

    def close(self) -> None:
        with self._lock:
            self._stop_blinking()
            if not self.led.closed:
                self.led.off()
                self.led.close()


def open_status_light(config: Config, wait: Wait = _wait) -> StatusLight | None:
    """The status LED of a GPIO box (``keypad.source: gpio`` and ``keypad.gpio.led`` set), or
    None. A pin that cannot be used, or a machine with no GPIO, is reported in
    ``config.problems`` (print them after calling this) and gives None: play goes on dark."""
    if "gpio" not in keypad_sources(config):
        return None
    section = "keypad.gpio"
    led_pin = _optional_pin(config, f"{section}.led", DEFAULT_LED_PIN)
    if led_pin is None:
        return None
    active_high = config.value(f"{section}.led_active_high")
    try:
        from gpiozero import LED
    except ImportError as error:
        config.problems.append(f"keypad.gpio.led: {NO_GPIOZERO} ({error}). The status light is off.")
        return None
    try:
        led = _quietly(functools.partial(LED, led_pin, active_high=active_high, initial_value=False))
    except _gpio_errors() as error:
        config.problems.append(f"keypad.gpio.led: {no_gpio_message(error)} The status light is off.")
        return None
    return StatusLight(led, wait)


def open_gpio_keypad(config: Config) -> GpioKeypad | None:
    """The GPIO keypad from ``keypad.gpio``; None (problems reported) when its pins are bad."""
    settings = gpio_settings(config)
    if settings is None:
        return None
    if settings.talk is None and config.value("listen") == "push-to-talk":
        config.problems.append(f"{config.where('keypad.gpio.talk')}: listen is push-to-talk, but keypad.gpio.talk "
                               "names no talk button, so nothing can open the microphone: wire one and set "
                               f"keypad.gpio.talk (e.g. {DEFAULT_TALK_PIN}), or set listen: always.")
    return GpioKeypad(settings.pins, settings.talk, settings.pull_up, settings.bounce_seconds)
