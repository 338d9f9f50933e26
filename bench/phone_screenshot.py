"""The phone keypad's page as a phone shows it, for docs/phone-keypad.png: a real Command
Center session at Red's sign-on, the page joined as Red in headless Chromium (Debian's
chromium and chromedriver), the first digit of the secret code in.

    .venv/bin/python -m bench.phone_screenshot [--out docs/phone-keypad.png]

``chromium()`` is also the browser of the phone keypad's end-to-end test.
"""

from __future__ import annotations

import argparse
import queue
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from assistant.phone import PhoneKeypad, PhoneSettings
from assistant.session import PrintAnnouncer, Session

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: A phone's screen, in CSS pixels.
PHONE_SIZE = (412, 860)


def chromium(profile: Path, size: tuple[int, int] = PHONE_SIZE) -> WebDriver:
    """Headless Chromium with its own profile folder (so each is a separate phone: its own
    cookies), as root in CI (no sandbox)."""
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-extensions", "--no-first-run", f"--user-data-dir={profile}",
                     f"--window-size={size[0]},{size[1]}", "--hide-scrollbars"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def join(driver: WebDriver, url: str, pin: str, color: str) -> None:
    """Open the page and join as ``color`` with ``pin`` (whatever the page answers)."""
    driver.get(url)
    wait = WebDriverWait(driver, 10)
    wait.until(lambda d: d.find_element(By.ID, "join").is_displayed())
    wait.until(lambda d: d.find_elements(By.ID, f"color-{color}"))
    pin_box = driver.find_element(By.ID, "pin")
    pin_box.clear()
    pin_box.send_keys(pin)
    driver.find_element(By.CSS_SELECTOR, f"label.c-{color}").click()
    driver.find_element(By.ID, "join-button").click()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/phone-keypad.png"))
    args = parser.parse_args(argv)
    said: list[str] = []
    session = Session.new("omega-virus", 7, {}, PrintAnnouncer(said.append), None)
    presses: queue.Queue[str] = queue.Queue()
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0))
    keypad.follow(session)
    keypad.start(presses.put)
    session.start()
    session.hear("skill zero")
    with tempfile.TemporaryDirectory(prefix="phone-shot-") as profile:
        driver = chromium(Path(profile))
        try:
            join(driver, keypad.url, keypad.pin, "red")
            wait = WebDriverWait(driver, 10)
            wait.until(lambda d: d.find_element(By.ID, "prompt").text == "Red, enter secret code.")
            driver.find_element(By.CSS_SELECTOR, "#keys button[data-button='1']").click()
            session.press([presses.get(timeout=5)])
            wait.until(lambda d: d.find_element(By.ID, "dots").text == "\u25CF\u25CB")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(args.out))
        finally:
            driver.quit()
            keypad.stop()
    print(f"{args.out}: the page joined as Red at sign-on, one digit in", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
