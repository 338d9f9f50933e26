"""The GPIO keypad and status light on gpiozero's mock pins, as scripts/check-arm64.sh runs it on
arm64 and on x86: one line per check, the same lines on both when the keypad works the same.

First the machine's own pins as play would open them (no mock): on a machine with no GPIO
header (this check's chroot, the x86 development machine) that must be the one-sentence
"No GPIO pins here" with play going on, not a crash of the pin library. Then the mock pins:
each button is its Command Center key, a held button is one press, a bouncing contact is one
press, and the LED follows the states the live loop gives it."""

from __future__ import annotations

import time

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from assistant.config import Config
from assistant.live.gpio import DEFAULT_LED_PIN, DEFAULT_PINS, DEFAULT_TALK_PIN, GpioKeypad, open_status_light
from assistant.live.keypad import KeypadError, PressQueue
from assistant.live.keypads import open_keypad

GPIO_CONFIG = "keypad:\n  source: gpio\n"


def machine_pins() -> str:
    """What opening the keypad on this machine's own pins says (the first sentence)."""
    keypad = open_keypad(Config.from_text(GPIO_CONFIG))
    if not isinstance(keypad, GpioKeypad):
        return f"no GPIO keypad opened: {keypad!r}"
    try:
        keypad.start(lambda button: None)
    except KeypadError as error:
        return "refused: " + str(error).split(":")[0]
    finally:
        keypad.stop()
    return "opened real pins"


def tap(factory: MockFactory, gpio: int) -> None:
    pin = factory.pin(gpio)
    pin.drive_low()
    time.sleep(0.02)
    pin.drive_high()
    time.sleep(0.12)  # longer than the bounce time between presses of one button


def wait_for(presses: PressQueue, count: int, seconds: float = 10.0) -> list[str]:
    """The presses so far, waiting up to ``seconds`` for ``count`` of them (emulation is slow)."""
    got: list[str] = []
    deadline = time.monotonic() + seconds
    while len(got) < count and time.monotonic() < deadline:
        got += presses.drain()
        time.sleep(0.02)
    return got + presses.drain()


def main() -> int:
    print(f"machine pins: {machine_pins()}")
    before = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        presses = PressQueue()
        keypad = GpioKeypad(DEFAULT_PINS, talk=DEFAULT_TALK_PIN)
        keypad.start(presses)
        try:
            for gpio in (DEFAULT_PINS["0"], DEFAULT_PINS["1"], DEFAULT_PINS["2"], DEFAULT_PINS["R"], DEFAULT_TALK_PIN):
                tap(factory, gpio)
            print("taps 0 1 2 R talk: " + " ".join(wait_for(presses, 5)))
            factory.pin(DEFAULT_PINS["2"]).drive_low()  # held down
            time.sleep(0.3)
            factory.pin(DEFAULT_PINS["2"]).drive_high()
            print("held 2: " + " ".join(wait_for(presses, 1)))
        finally:
            keypad.stop()
        bouncy = GpioKeypad(DEFAULT_PINS, bounce_seconds=0.5)
        bouncy.start(presses)
        try:
            pin = factory.pin(DEFAULT_PINS["1"])
            for _ in range(4):  # a bouncing contact: four closures in quick succession
                pin.drive_low()
                pin.drive_high()
            time.sleep(0.3)
            print("bouncing 1: " + " ".join(wait_for(presses, 1)))
        finally:
            bouncy.stop()
        config = Config.from_text(GPIO_CONFIG)
        light = open_status_light(config)
        print(f"status light: {'on GPIO' + str(DEFAULT_LED_PIN) if light is not None else config.problems}")
        if light is not None:
            led = factory.pin(DEFAULT_LED_PIN)
            light("listening")
            time.sleep(0.2)
            print(f"listening: LED {'on' if led.state else 'off'}")
            light.close()
    finally:
        factory.reset()
        factory.close()
        Device.pin_factory = before
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
