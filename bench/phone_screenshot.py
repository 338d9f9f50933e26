"""The phone keypad's page as a phone shows it, for docs/phone-keypad.png: a real Command
Center session at Red's sign-on, the page joined as Red in headless Chromium (Debian's
chromium and chromedriver), the first digit of the secret code in.

    .venv/bin/python -m bench.phone_screenshot [--out docs/phone-keypad.png]

The browser is ``tests.support.browser``'s, the phone keypad's end-to-end test's.
"""

from __future__ import annotations

import argparse
import queue
import sys
import tempfile
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from assistant.phone import PhoneKeypad, PhoneSettings
from assistant.session import PrintAnnouncer, Session
from tests.support.browser import chromium, join


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
