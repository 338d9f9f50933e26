"""With ``phone.port: 0`` the system chooses the phone keypad's port when it starts: the
address BSat1 says and the terminal shows at the start of a game is the one phones reach, and
the live loop keeps serving there. The real server, wired as the live start wires it (the
keypad tried by ``working``, then announced, then the live loop started)."""

from __future__ import annotations

import io
import re
import urllib.request

from assistant.config import Config
from assistant.live.keypads import open_keypad, working
from assistant.live.loop import LiveSettings
from assistant.live.run import phone_announced, phone_keypad
from assistant.session import Session
from tests.live_helpers import FakeMic
from tests.test_phone_server import Speaker, live_loop


def page(url: str) -> str:
    with urllib.request.urlopen(url + "/", timeout=10) as response:
        assert response.status == 200
        text: str = response.read().decode()
        return text


def test_the_address_said_at_the_start_carries_the_port_the_system_chose() -> None:
    problems: list[str] = []
    keypad = working(open_keypad(Config.from_text("keypad:\n  source: phone\nphone:\n  bind: 127.0.0.1\n"
                                                  "  port: 0\n")), problems.append)
    phone = phone_keypad(keypad)
    assert phone is not None and not problems
    table = Speaker()
    session = Session.new("omega-virus", 1, {}, table, None)
    session.start()
    phone.follow(session)
    out = io.StringIO()
    try:
        said = phone_announced(phone, out)
        shown = re.match(r"phone keypad: http://127\.0\.0\.1:(\d+)  PIN (\d{4})\n", out.getvalue())
        assert shown is not None, out.getvalue()
        port, pin = int(shown[1]), shown[2]
        assert port != 0 and port == phone.port
        assert said == (f"Phone keypad: on your phone, open 1 2 7 dot 0 dot 0 dot 1, port {' '.join(str(port))}, "
                        f"and enter PIN {' '.join(pin)}.")
        assert 'id="keys"' in page(f"http://127.0.0.1:{port}")
        with live_loop(session, table, phone, FakeMic(), LiveSettings(mute_tail_seconds=0.1)):
            assert phone.port == port  # the loop's start keeps the server the players were told of
            assert 'id="keys"' in page(f"http://127.0.0.1:{port}")
    finally:
        phone.stop()
    assert phone.port is None  # stopped: no port is claimed any more
