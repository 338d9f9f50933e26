"""The phone keypad's server, real and on a free port, spoken to as phones do (HTTP and a
WebSocket, by aiohttp's client): headers, cookies, other sites, the table's decisions, which
presses are taken, a new game's PIN, the mDNS name, and starting and stopping cleanly."""

from __future__ import annotations

import asyncio
import io
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import aiohttp
import pytest

from assistant.config import Config
from assistant.engine import Output
from assistant.games import PrivateRequest
from assistant.live.keypad import KeypadError
from assistant.phone import PhoneError, PhoneKeypad, PhoneSettings
from assistant.phone.access import CLIENT_TRIES
from assistant.phone.turns import IN_FLIGHT_S
from assistant.session import PrintAnnouncer, Session
from tests.live_helpers import FakeMic

RED_CODE = PrivateRequest("red", "Red, enter secret code.", 2, 0, "Red is entering a secret code.")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Game:
    """What the keypad reads: a request the test sets, and whether the assistant speaks."""

    def __init__(self) -> None:
        self.request: PrivateRequest | None = None
        self.speaking = False
        self.presses: list[str] = []


@pytest.fixture
def game() -> Game:
    return Game()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def keypad(game: Game, clock: Clock) -> Iterator[PhoneKeypad]:
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0), ("red", "blue", "green", "yellow"),
                         request=lambda: game.request, busy=lambda: game.speaking, clock=clock)
    keypad.start(game.presses.append)
    try:
        yield keypad
    finally:
        keypad.stop()
    assert not [t for t in threading.enumerate() if t.name == "phone-keypad"]


class Phone:
    """One phone's browser: its own cookies, its socket."""

    def __init__(self, url: str, client: aiohttp.ClientSession) -> None:
        self.url, self.client = url, client
        self.socket: aiohttp.ClientWebSocketResponse | None = None

    async def join(self, pin: str, color: str) -> tuple[int, dict[str, Any]]:
        async with self.client.post(self.url + "/api/join", json={"pin": pin, "color": color}) as response:
            return response.status, await response.json()

    async def open(self) -> dict[str, Any]:
        self.socket = await self.client.ws_connect(self.url + "/ws")
        return await self.next()

    async def next(self) -> dict[str, Any]:
        assert self.socket is not None
        message = await asyncio.wait_for(self.socket.receive_json(), 5)
        assert isinstance(message, dict)
        return message

    async def until(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        for _ in range(20):
            message = await self.next()
            if check(message):
                return message
        raise AssertionError("never came")

    async def press(self, button: str) -> dict[str, Any]:
        assert self.socket is not None
        await self.socket.send_json({"type": "press", "button": button})
        return await self.until(lambda m: m["type"] in ("refused", "taken"))


def run(keypad: PhoneKeypad, scenario: Callable[[Callable[[], Phone]], Awaitable[None]]) -> None:
    """Run ``scenario`` with a maker of phones (each with its own cookies), closing them after."""

    async def main() -> None:
        clients: list[aiohttp.ClientSession] = []

        def phone() -> Phone:
            client = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
            clients.append(client)
            return Phone(keypad.url, client)

        try:
            await scenario(phone)
        finally:
            for client in clients:
                await client.close()

    asyncio.run(main())


def wrong(keypad: PhoneKeypad) -> str:
    return "0000" if keypad.pin != "0000" else "1111"


def test_the_page_is_served_with_strict_headers(keypad: PhoneKeypad) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        client = phone().client
        async with client.get(keypad.url + "/") as page:
            assert page.status == 200 and page.content_type == "text/html"
            assert "default-src 'self'" in page.headers["Content-Security-Policy"]
            assert page.headers["X-Frame-Options"] == "DENY" and page.headers["Cache-Control"] == "no-store"
            assert 'id="keys"' in await page.text()
        for path, kind in (("/app.js", "text/javascript"), ("/style.css", "text/css")):
            async with client.get(keypad.url + path) as response:
                assert response.status == 200 and response.content_type == kind
        async with client.get(keypad.url + "/config.yaml") as response:
            assert response.status == 404
        async with client.get(keypad.url + "/api/hello") as response:
            assert await response.json() == {"colors": ["red", "blue", "green", "yellow"], "phone": None}

    run(keypad, scenario)


def test_joining_gives_a_private_cookie_and_the_page_knows_its_phone(keypad: PhoneKeypad) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        red = phone()
        async with red.client.post(keypad.url + "/api/join", json={"pin": keypad.pin, "color": "red"}) as response:
            assert response.status == 200
            cookie = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        async with red.client.get(keypad.url + "/api/hello") as response:
            assert (await response.json())["phone"] == {"color": "red", "waiting": False}

    run(keypad, scenario)


def test_another_site_cannot_join_or_listen(keypad: PhoneKeypad) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        client = phone().client
        evil = {"Origin": "http://evil.example"}
        async with client.post(keypad.url + "/api/join", json={"pin": keypad.pin, "color": "red"},
                               headers=evil) as response:
            assert response.status == 403
        async with client.post(keypad.url + "/api/join", data=f"pin={keypad.pin}&color=red",
                               headers={"Content-Type": "application/x-www-form-urlencoded"}) as response:
            assert response.status == 415  # a form another site could post without asking
        async with client.post(keypad.url + "/api/join", json={"pin": keypad.pin}) as response:
            assert response.status == 400 and (await response.json())["reason"] == "Send the PIN and a color."
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await client.ws_connect(keypad.url + "/ws", headers=evil)
        assert keypad.door.phones() == []

    run(keypad, scenario)


def test_a_socket_without_a_joined_phone_is_told_to_join(keypad: PhoneKeypad) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        stranger = phone()
        assert await stranger.open() == {"type": "signed_out", "reason": "Join with the PIN BSat1 says."}

    run(keypad, scenario)


def test_guessing_the_pin_from_one_phone_is_stopped(keypad: PhoneKeypad) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        guesser = phone()
        for _ in range(CLIENT_TRIES):
            status, answer = await guesser.join(wrong(keypad), "red")
            assert status == 403 and answer["reason"].startswith("Wrong PIN")
        status, answer = await guesser.join(keypad.pin, "red")
        assert status == 429 and "Too many wrong PINs" in answer["reason"]

    run(keypad, scenario)


def test_presses_count_only_from_the_color_asked_and_only_as_many_as_asked(
        keypad: PhoneKeypad, game: Game, clock: Clock) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        red, blue = phone(), phone()
        assert (await red.join(keypad.pin, "red"))[0] == 200
        assert (await blue.join(keypad.pin, "blue"))[0] == 200
        assert await red.open() == {"type": "state", "color": "red", "turn": "idle",
                                    "text": "Nothing to enter now. Listen to BSat1."}
        await blue.open()
        assert (await red.press("1"))["reason"].startswith("Not now")
        game.request = RED_CODE
        assert await red.until(lambda m: m["type"] == "state") == {
            "type": "state", "color": "red", "turn": "yours", "text": "Red, enter secret code.",
            "presses": 2, "entered": 0}
        assert await blue.until(lambda m: m["type"] == "state") == {
            "type": "state", "color": "blue", "turn": "other", "text": "Red is entering a secret code."}
        assert await blue.press("1") == {"type": "refused",
                                         "reason": "Not your turn: Red is entering a secret code."}
        assert (await red.press("7"))["reason"] == "Press 0, 1, 2 or R."
        game.speaking = True
        assert (await red.press("1"))["reason"] == "Wait until BSat1 has finished speaking, then press."
        game.speaking = False
        assert await red.press("1") == {"type": "taken"}
        assert (await red.until(lambda m: m["type"] == "state"))["entered"] == 1
        assert await red.press("2") == {"type": "taken"}
        # The game has not taken them yet: a third press would land in the next entry.
        assert (await red.press("0"))["reason"] == "That entry is complete."
        assert game.presses == ["1", "2"]
        # Presses the game never saw (pressed as it spoke) are given up after a while.
        clock.now += IN_FLIGHT_S
        assert await red.press("0") == {"type": "taken"}
        assert game.presses == ["1", "2", "0"]

    run(keypad, scenario)


def test_the_table_can_hand_a_taken_color_to_a_second_phone(keypad: PhoneKeypad) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        first, second = phone(), phone()
        await first.join(keypad.pin, "red")
        await first.open()
        status, answer = await second.join(keypad.pin, "red")
        assert status == 200 and answer["waiting"] and "Red is on another phone" in answer["text"]
        assert (await second.open())["type"] == "waiting"
        assert (await second.press("1"))["reason"].startswith("Red is on another phone")
        assert keypad.waiting_colors() == ("red",)
        assert keypad.hand_over("red")
        assert await first.until(lambda m: m["type"] == "signed_out") == {
            "type": "signed_out", "reason": "Another phone took Red, as the table agreed."}
        assert (await second.until(lambda m: m["type"] == "state"))["color"] == "red"
        assert not keypad.hand_over("red")

    run(keypad, scenario)


def test_a_phone_that_leaves_gives_its_color_to_the_phone_waiting(keypad: PhoneKeypad) -> None:
    async def scenario(phone: Callable[[], Phone]) -> None:
        first, second = phone(), phone()
        await first.join(keypad.pin, "red")
        await second.join(keypad.pin, "red")
        assert (await second.open())["type"] == "waiting"
        async with first.client.post(keypad.url + "/api/leave", json={}) as response:
            assert response.status == 200
        assert (await second.until(lambda m: m["type"] == "state"))["color"] == "red"
        assert (await first.open())["type"] == "signed_out"

    run(keypad, scenario)


def test_a_new_game_has_a_new_pin_and_the_phones_stay(tmp_path: Any) -> None:
    said: list[str] = []
    session = Session.new("omega-virus", 3, {}, PrintAnnouncer(said.append), None)
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0))
    keypad.follow(session)
    keypad.start(lambda button: None)
    try:
        session.start()
        session.hear("skill zero")
        old = keypad.pin

        async def scenario(phone: Callable[[], Phone]) -> None:
            red = phone()
            await red.join(old, "red")
            assert (await red.open())["text"] == "Red, enter secret code."
            session.hear("new game")
            session.hear("yes")
            assert (await red.until(lambda m: m["type"] == "state"))["turn"] == "idle"  # "Enter skill."
            for _ in range(50):
                if keypad.pin != old:
                    break
                await asyncio.sleep(0.05)
            assert keypad.pin != old
            assert (await phone().join(old, "blue"))[0] == 403
            assert (await phone().join(keypad.pin, "blue"))[0] == 200

        run(keypad, scenario)
    finally:
        keypad.stop()


def test_bsat1_says_the_address_and_pin_and_the_terminal_shows_a_qr_code(keypad: PhoneKeypad) -> None:
    assert keypad.announcement() == f"Phone keypad: open http://127.0.0.1:{keypad.port} and enter PIN " \
        f"{' '.join(keypad.pin)}."
    port = " ".join(str(keypad.port))
    assert keypad.spoken_announcement() == f"Phone keypad: on your phone, open 1 2 7 dot 0 dot 0 dot 1, " \
        f"port {port}, and enter PIN {' '.join(keypad.pin)}."
    out = io.StringIO()
    keypad.show(out)
    text = out.getvalue()
    assert text.startswith(f"phone keypad: http://127.0.0.1:{keypad.port}  PIN {keypad.pin}\n")
    assert len(text.splitlines()) > 10 and "\u2588" in text  # the code's blocks


def test_a_taken_port_is_a_clear_error_and_start_stop_start_keeps_the_game(game: Game) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=port), ("red",))
        with pytest.raises(PhoneError, match=f"cannot listen on 127.0.0.1:{port}.*phone.port") as error:
            keypad.start(game.presses.append)
        assert isinstance(error.value, KeypadError)  # what the live start catches for any keypad
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0), ("red",))
    keypad.start(lambda button: None)  # as the live start checks the keypad opens
    keypad.stop()
    pin, phone = keypad.pin, keypad.door.join("a", keypad.pin, "red")
    keypad.start(game.presses.append)
    try:
        assert keypad.pin == pin and keypad.door.phone(phone.token) is phone
    finally:
        keypad.stop()
    assert not [t for t in threading.enumerate() if t.name == "phone-keypad"]


def test_the_phone_settings_come_from_config_yaml() -> None:
    config = Config.from_text("phone:\n  bind: all\n  port: 9000\n  mdns: true\n")
    assert PhoneSettings.from_config(config) == PhoneSettings("all", 9000, True)
    bad = Config.from_text("phone:\n  port: 70000\n")
    assert PhoneSettings.from_config(bad).port == 8470 and bad.problems
    assert PhoneSettings.from_config(Config()) == PhoneSettings("", 8470, False)


def test_the_mdns_name_is_announced_while_the_keypad_runs() -> None:
    from zeroconf import Zeroconf

    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0, mdns=True), ("red",))
    keypad.start(lambda button: None)
    try:
        out = io.StringIO()
        keypad.show(out)
        assert f"http://omega.local:{keypad.port}" in out.getvalue()
        browser = Zeroconf(interfaces=["127.0.0.1"])
        try:
            info = browser.get_service_info("_http._tcp.local.", "Omega Virus keypad._http._tcp.local.", timeout=5000)
        finally:
            browser.close()
        assert info is not None and info.server == "omega.local." and info.port == keypad.port
        assert info.parsed_addresses() == ["127.0.0.1"]
    finally:
        keypad.stop()


class Speaker:
    """The announcer: what the assistant says, with the speaking signal set meanwhile."""

    def __init__(self) -> None:
        from assistant.voice.announcer import SpeakingSignal

        self.speaking = SpeakingSignal(ended_at=-100.0)
        self.lines: list[str] = []

    def announce(self, outputs: Sequence[Output]) -> None:
        if outputs:
            self.speaking.begin()
            self.lines += [output.line() for output in outputs]
            self.speaking.end()


@contextmanager
def live_loop(player: Any, table: Speaker, keypad: PhoneKeypad, mic: FakeMic, settings: Any) -> Iterator[None]:
    """The real LiveLoop in a thread of its own, as the live start wires it: ``player`` (a
    session or the box) hears the words typed into ``mic``, the phone keypad is its keypad. The
    block starts once the keypad listens; leaving it stops the loop and checks all stopped."""
    from assistant.hearing.recognizer import Ear
    from assistant.hearing.text_engine import TextRecognizer
    from assistant.live.loop import LiveLoop

    ear = Ear(TextRecognizer(), player.sentences, player.allowed_intents())
    loop = LiveLoop(player, ear, mic, table.speaking, keypad, settings, log=lambda message: None)  # type: ignore[arg-type]
    stop = threading.Event()
    runner = threading.Thread(target=loop.run, args=(stop,), name="live-loop")
    runner.start()
    try:
        for _ in range(100):  # the loop starts the keypad
            if keypad.port is not None:
                break
            time.sleep(0.05)
        yield
    finally:
        stop.set()
        runner.join(timeout=10)
    assert not runner.is_alive()
    assert not [t for t in threading.enumerate() if t.name == "phone-keypad"]


def test_the_live_loop_takes_phone_presses_as_keypad_presses() -> None:
    """The wiring the live start does: the real loop, words typed into its microphone, the
    phone keypad as its keypad, following the session and quiet while the assistant speaks."""
    from assistant.live.loop import LiveSettings

    table = Speaker()
    session = Session.new("omega-virus", 1, {}, table, None)
    mic = FakeMic()
    settings = LiveSettings(mute_tail_seconds=0.1)
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0))
    keypad.follow(session, busy=lambda: table.speaking.busy(settings.mute_tail_seconds))
    session.start()
    with live_loop(session, table, keypad, mic, settings):
        async def scenario(phone: Callable[[], Phone]) -> None:
            red = phone()
            await red.join(keypad.pin, "red")
            await red.open()
            await asyncio.sleep(0.3 - table.speaking.quiet_for())  # what is heard in the mute tail is dropped
            mic.blocks.put(b"skill zero\n")
            await red.until(lambda m: m.get("text") == "Red, enter secret code.")
            await asyncio.sleep(0.15)  # presses in the mute tail are refused: BSat1 just spoke
            for button in "12":
                assert await red.press(button) == {"type": "taken"}
            await red.until(lambda m: m.get("text") == "Blue is entering a secret code.")

        run(keypad, scenario)
        assert session.game.players["red"].code == "12"  # type: ignore[attr-defined]
        assert table.lines[-1] == "BSAT1: Blue, enter secret code."


def test_following_the_game_played_now_its_colors_and_a_new_pin_said_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As the box switches games (and goes back to its menu), the keypad takes up the game
    played now: BSat1's announcement right after a switch already has the new game's PIN."""
    pins = iter(["1111", "2222", "3333", "4444"])
    monkeypatch.setattr("assistant.phone.access.new_pin", lambda: next(pins))
    said: list[str] = []

    def session(game: str, seed: int) -> Session:
        return Session.new(game, seed, {}, PrintAnnouncer(said.append), None)

    playing: list[Session | None] = [session("omega-virus", 3)]
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0))
    keypad.follow(lambda: playing[0])
    assert keypad.door.colors == ("red", "blue", "green", "yellow")
    assert keypad.announcement().endswith("PIN 1 1 1 1.")
    red = keypad.door.join("a", "1111", "red")
    playing[0] = None  # the box's menu: nothing changes
    assert keypad.announcement().endswith("PIN 1 1 1 1.") and keypad.door.colors
    playing[0] = session("prologue", 3)
    shown = io.StringIO()
    keypad.show(shown)  # the terminal, shown first, has the new game's PIN too
    assert shown.getvalue().splitlines()[0].endswith("  PIN 2222")
    assert keypad.announcement().endswith("PIN 2 2 2 2.") and keypad.door.colors == ()
    omega = playing[0] = session("omega-virus", 4)
    assert keypad.pin == "3333"  # read first, as a phone's test would: the new game's, and it stays
    assert keypad.announcement().endswith("PIN 3 3 3 3.")
    assert keypad.pin == "3333"
    assert keypad.door.colors == ("red", "blue", "green", "yellow")
    assert keypad.door.phone(red.token) is red  # the phones in stay in
    omega.start()
    omega.hear("skill zero")
    assert keypad.turns.look() == omega.spec.private_request(omega.game) is not None
    omega.hear("pause")
    assert keypad.turns.look() is None  # a paused game takes no press
    omega.hear("resume")
    assert keypad.turns.look() is not None
    omega.hear("new game")
    assert keypad.turns.look() is None  # nor while asking "Start a new game?"
    omega.hear("yes")
    assert keypad.announcement().endswith("PIN 4 4 4 4.")
