"""The phone keypad end to end, in a real browser: headless Chromium (Debian's chromium and
chromedriver, through Selenium) opens the page, joins with the game's PIN and plays sign-on
and an attack while a real Command Center session runs; the spoken commands go to the same
session as text, one input at a time, as the live loop feeds it. A wrong PIN, a second phone
for a taken color, a press at the wrong moment and a press for another color are refused on
the page, with the reason."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from assistant.games.omega_virus.state import Phase
from assistant.journal import Journal
from assistant.phone import PhoneKeypad, PhoneSettings
from assistant.session import PrintAnnouncer, Session
from tests.support.browser import CHROMEDRIVER, CHROMIUM, chromium, join

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                                 reason="needs Debian's chromium and chromium-driver")]

#: Injected before the page's own script: records every vibration and every message the
#: page receives, so the test can check what reached this phone (and what never did).
RECORDER = """
window.__vibrations = [];
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };
window.__received = [];
const NativeSocket = window.WebSocket;
class RecordingSocket extends NativeSocket {
  constructor(url, protocols) {
    super(url, protocols);
    this.addEventListener("message", (event) => window.__received.push(event.data));
  }
}
window.WebSocket = RecordingSocket;
"""

#: A join sent from the page by hand (as a player might from the browser's console).
JOIN_BY_HAND = """
const [pin, color, done] = arguments;
fetch("/api/join", {method: "POST", headers: {"Content-Type": "application/json"},
                    body: JSON.stringify({pin, color})})
  .then(async (response) => done([response.status, await response.json()]));
"""


class Table:
    """The live loop's part, on a thread of its own: presses from the phones and the words the
    test says reach one real session one at a time, in the order they came."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.inputs: queue.Queue[tuple[str, str, threading.Event | None]] = queue.Queue()
        self.presses: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table", daemon=True)
        self._thread.start()

    def on_press(self, button: str) -> None:
        self.inputs.put(("press", button, None))

    def say(self, text: str) -> None:
        done = threading.Event()
        self.inputs.put(("hear", text, done))
        assert done.wait(10), text

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                kind, text, done = self.inputs.get(timeout=0.02)
            except queue.Empty:
                continue
            if kind == "press":
                self.presses.append(text)
                self.session.press([text])
            else:
                self.session.hear(text)
            if done is not None:
                done.set()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class Phone:
    """One phone: a browser with its own profile (its own cookies)."""

    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})

    def text(self, element_id: str) -> str:
        return str(self.driver.find_element(By.ID, element_id).text)

    def until(self, check: Callable[[Phone], object], what: str) -> None:
        try:
            WebDriverWait(self.driver, 10, poll_frequency=0.05).until(lambda d: check(self))
        except Exception as error:
            raise AssertionError(f"{what}; the page shows: {self.driver.find_element(By.TAG_NAME, 'main').text!r}"
                                 ) from error

    def shows(self, element_id: str, text: str) -> None:
        self.until(lambda p: p.text(element_id) == text, f"#{element_id} never showed {text!r}")

    def shows_part(self, element_id: str, text: str) -> None:
        self.until(lambda p: text in p.text(element_id), f"#{element_id} never showed {text!r}")

    def press(self, button: str) -> None:
        self.driver.find_element(By.CSS_SELECTOR, f"#keys button[data-button='{button}']").click()

    def vibrations(self) -> int:
        return int(self.driver.execute_script("return window.__vibrations.length"))

    def received(self) -> list[dict[str, object]]:
        return [json.loads(m) for m in self.driver.execute_script("return window.__received")]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Session, PhoneKeypad, Table, list[str]]]:
    said: list[str] = []
    session = Session.new("omega-virus", 3, {}, PrintAnnouncer(said.append), tmp_path / "journals")
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0))
    keypad.follow(session)
    table = Table(session)
    keypad.start(table.on_press)
    session.start()
    try:
        yield session, keypad, table, said
    finally:
        keypad.stop()
        table.stop()


@pytest.fixture
def phones(tmp_path: Path) -> Iterator[Callable[[], Phone]]:
    """Phones on demand; each browser quit afterwards, and checked gone."""
    opened: list[tuple[WebDriver, Path]] = []

    def open_phone() -> Phone:
        profile = tmp_path / f"phone-{len(opened)}"
        profile.mkdir()
        driver = chromium(profile)
        opened.append((driver, profile))
        return Phone(driver)

    try:
        yield open_phone
    finally:
        for driver, _ in opened:
            driver.quit()
        for _, profile in opened:
            left = _processes_using(profile)
            assert not left, f"browser processes left behind: {left}"
            shutil.rmtree(profile, ignore_errors=True)


def _processes_using(profile: Path) -> list[str]:
    """Live processes started with this profile folder (a quit browser's take a moment to end)."""
    deadline = time.monotonic() + 5
    while True:
        found = subprocess.run(["pgrep", "-f", "--", f"--user-data-dir={profile}"], capture_output=True, text=True)
        if not found.stdout.strip() or time.monotonic() > deadline:
            return found.stdout.split()
        time.sleep(0.1)


def test_phones_play_sign_on_and_an_attack(table: tuple[Session, PhoneKeypad, Table, list[str]],
                                           phones: Callable[[], Phone]) -> None:
    session, keypad, driver, said = table
    game = session.game
    red, blue = phones(), phones()

    # A wrong PIN is refused; the right one lets Red in.
    wrong = "0000" if keypad.pin != "0000" else "1111"
    join(red.driver, keypad.url, wrong, "red")
    red.shows_part("join-message", "Wrong PIN")
    join(red.driver, keypad.url, keypad.pin, "red")
    red.shows("badge", "RED")
    red.shows("prompt", "Nothing to enter now. Listen to BSat1.")

    # A color the game does not have is refused (the page offers only the game's colors; a
    # request made by hand is answered with the reason).
    blue.driver.get(keypad.url)
    answer = blue.driver.execute_async_script(JOIN_BY_HAND, keypad.pin, "purple")
    assert answer == [400, {"reason": "Choose a color: red, blue, green, yellow."}]

    # A second phone for Red waits: the first must leave, or the table hand it over.
    join(blue.driver, keypad.url, keypad.pin, "red")
    blue.shows_part("waiting-text", "Red is on another phone")
    assert keypad.waiting_colors() == ("red",)
    blue.driver.find_element(By.ID, "cancel").click()
    blue.shows_part("join-message", "You left")
    assert keypad.waiting_colors() == ()
    join(blue.driver, keypad.url, keypad.pin, "blue")
    blue.shows("badge", "BLUE")

    # The wrong moment: nothing private is asked before sign-on.
    red.press("1")
    red.shows_part("message", "Not now")
    assert game.phase is Phase.SKILL and driver.presses == []

    # Sign-on: Red's phone vibrates and takes Red's code; Blue's refuses, then takes Blue's.
    driver.say("skill zero")
    red.shows("prompt", "Red, enter secret code.")
    red.until(lambda p: p.vibrations() == 1, "Red's phone never vibrated")
    blue.shows("prompt", "Red is entering a secret code.")
    assert blue.vibrations() == 0
    blue.press("2")
    blue.shows("message", "Not your turn: Red is entering a secret code.")
    red.press("1")
    red.shows("dots", "\u25CF\u25CB")
    red.press("2")
    blue.shows("prompt", "Blue, enter secret code.")
    blue.until(lambda p: p.vibrations() == 1, "Blue's phone never vibrated")
    red.shows("prompt", "Blue is entering a secret code.")
    blue.press("0")
    blue.press("1")
    red.shows("prompt", "Green is entering a secret code.")
    driver.say("skip")
    driver.say("skip")
    assert (game.players["red"].code, game.players["blue"].code) == ("12", "01")
    assert driver.presses == ["1", "2", "0", "1"]

    # An attack: the mover says it aloud, takes the shot on the phone, the defender energizes
    # shields on the other phone.
    assert game.mover is not None
    attacker, defender = ("red", "blue") if game.mover[0] == "red" else ("blue", "red")
    by_color = {"red": red, "blue": blue}
    red.shows("prompt", "Nothing to enter now. Listen to BSat1.")
    driver.say(f"attack {defender}")
    shooter, target = by_color[attacker], by_color[defender]
    shooter.shows("prompt", f"{attacker.title()}, take your best shot!")
    shooter.until(lambda p: p.vibrations() == 2, "the shooter's phone never vibrated")
    target.shows("prompt", f"{attacker.title()} is taking a shot.")
    target.press("0")
    target.shows("message", f"Not your turn: {attacker.title()} is taking a shot.")
    assert game.phase is Phase.SHOT
    shooter.press("R")
    target.shows_part("prompt", f"{defender.title()}, energize")
    assert game.defense is not None and game.defense.hidden == "R"
    shields = game.defense.n
    for button in ("0", "1", "2")[:shields]:
        target.press(button)
    shooter.shows("prompt", "Nothing to enter now. Listen to BSat1.")
    assert any(f"{attacker.title()} missed" in line or "steals" in line or "destroyed" in line
               or "teleported" in line.lower() for line in said[-4:]), said[-4:]
    shooter.press("1")
    shooter.shows_part("message", "Not now")

    # Every press went to the session as a keypad press, and into the journal.
    assert session.journal is not None
    journal = Journal.read(session.journal.path)
    pressed = [e["cmd"]["slots"]["buttons"] for e in journal.entries
               if "cmd" in e and e["cmd"]["intent"] == "press"]
    assert pressed == ["1", "2", "0", "1", "R", *("0", "1", "2")[:shields]]

    # Nothing another color entered ever reached a phone: only its own entry shows its count.
    for color, phone in by_color.items():
        for message in phone.received():
            if message.get("type") == "state" and message.get("turn") != "yours":
                assert set(message) == {"type", "color", "turn", "text"}, message
            assert message.get("color", color) == color, message
