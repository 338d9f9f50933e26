"""Phones in text play (issue 32, finding 8): `assistant play omega-virus --text` with
``keypad.source: phone`` serves the phone page, so a table with no microphone types its moves
and enters its secret codes on the phones. Through the real CLI and a real phone client (an
aiohttp session with its own cookies, as a phone's browser has)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from pathlib import Path

import aiohttp

from tests.harness import Running

ROOT = Path(__file__).resolve().parent.parent


def address_and_pin(stderr: Path, timeout: float = 30) -> tuple[str, str]:
    """The address and PIN the terminal shows (``phone keypad: http://...  PIN 1234``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.findall(r"phone keypad: (http://\S+)  PIN (\d{4})", stderr.read_text())
        if found:
            return found[-1]
        time.sleep(0.1)
    raise AssertionError(f"the terminal never showed the address: {stderr.read_text()}")


async def join_and_press(url: str, pin: str, color: str, buttons: list[str]) -> list[str]:
    """One phone joins as ``color`` and presses ``buttons`` once its turn comes: what each press got."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
        async with client.post(url + "/api/join", json={"pin": pin, "color": color}) as response:
            assert response.status == 200, await response.text()
        socket = await client.ws_connect(url + "/ws")
        while (await asyncio.wait_for(socket.receive_json(), 10)).get("turn") != "yours":
            pass
        answers = []
        for button in buttons:
            await socket.send_json({"type": "press", "button": button})
            while (answer := await asyncio.wait_for(socket.receive_json(), 10))["type"] not in ("taken", "refused"):
                pass
            answers.append(answer["type"])
        await socket.close()
        return answers


def test_typed_moves_and_secret_codes_on_a_phone(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("keypad: {source: phone}\nphone: {bind: 127.0.0.1, port: 0, mdns: false}\n", encoding="utf-8")
    stderr = tmp_path / "stderr.txt"
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    command = [sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus", "--text",
               "--clock", "virtual", "--seed", "3"]
    with stderr.open("w") as err:
        cli = Running(command, env, tmp_path, stderr=err)
    proc = cli.proc
    try:
        opening = cli.read_until("BSAT1: Enter skill.")
        assert opening == ["BSAT1: Enter skill."]
        url, pin = address_and_pin(stderr)
        told = cli.read_until(f"BSAT1: Phone keypad: open {url} and enter PIN {' '.join(pin)}.")
        assert len(told) == 1
        cli.send("skill zero")
        cli.read_until("BSAT1: Red, enter secret code.")
        assert asyncio.run(join_and_press(url, pin, "red", ["1", "2"])) == ["taken", "taken"]
        cli.read_until("BSAT1: Blue, enter secret code.")
        cli.send("phone keypad")
        cli.read_until(f"BSAT1: Phone keypad: open {url} and enter PIN {' '.join(pin)}.")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "Traceback" not in stderr.read_text(), stderr.read_text()
