"""A real browser for the phone keypad's tests (and its screenshot, ``bench.phone_screenshot``):
headless Chromium (Debian's chromium and chromedriver) through Selenium, and joining the
keypad's page as a player."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

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
