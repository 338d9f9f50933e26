"""The table is told when a new phone asks for a color another phone has: the real phone
keypad server (phones as aiohttp clients), the box hands-free play drives (``TableBox``) around
a real session, and the real live loop with words typed into its microphone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import pytest

from assistant.box import Games, phone_phrases
from assistant.box import phone_waiting_said as waiting_said
from assistant.config import Config
from assistant.engine import Output
from assistant.games import GAMES, game_spec
from assistant.live.run import TableBox, hand_over_said
from assistant.phone import PhoneKeypad, PhoneSettings
from assistant.phrases import game_phrases
from assistant.session import SESSION_PHRASES, Session
from tests.live_helpers import FakeMic
from tests.test_phone_server import Phone, Speaker, live_loop, run


class Table(Speaker):
    """The announcer, also noting which thread spoke each line and whether speech overlapped."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.overlapped = False

    def announce(self, outputs: Sequence[Output]) -> None:
        self.overlapped |= self.speaking.is_speaking()
        self.threads += [threading.current_thread().name] * len(outputs)
        super().announce(outputs)


@dataclass
class Live:
    table: Table
    box: TableBox
    keypad: PhoneKeypad
    mic: FakeMic

    def said(self, text: str) -> int:
        return self.table.lines.count(f"BSAT1: {text}")

    async def until_said(self, text: str, times: int = 1) -> None:
        for _ in range(100):
            if self.said(text) >= times:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"never said {text!r}; said: {self.table.lines}")

    async def type(self, words: str, answer: str) -> None:
        """Words said to the box once it is quiet (what is heard in the mute tail is dropped)."""
        times = self.said(answer) + 1
        await asyncio.sleep(max(0.0, 0.3 - self.table.speaking.quiet_for()))
        self.mic.blocks.put(f"{words}\n".encode())
        await self.until_said(answer, times)


@pytest.fixture
def live() -> Iterator[Live]:
    """As ``run_live`` wires it: the box follows the phones, the loop runs in its own thread."""
    from assistant.live.loop import LiveSettings

    table = Table()
    settings = LiveSettings(mute_tail_seconds=0.1)
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0))
    box = TableBox(table, Games(lambda name: {}, None), on_phone=keypad.spoken_announcement,
                   on_hand_over=lambda color: hand_over_said(keypad, color), phone=keypad)
    keypad.follow(lambda: box.session, busy=lambda: table.speaking.busy(settings.mute_tail_seconds))
    session = Session.new("omega-virus", 1, {}, table, None)
    box.play(session)
    session.start()
    mic = FakeMic()
    with live_loop(box, table, keypad, mic, settings):
        yield Live(table, box, keypad, mic)


def test_the_table_is_told_once_of_a_new_phone_and_gives_it_the_color_by_voice(live: Live) -> None:
    red = waiting_said("red")

    async def scenario(phone: Callable[[], Phone]) -> None:
        first, second = phone(), phone()
        await first.join(live.keypad.pin, "red")
        await first.open()
        await asyncio.sleep(0.3)
        assert live.said(red) == 0  # one phone for Red is no news
        assert (await second.join(live.keypad.pin, "red"))[1]["waiting"]
        await live.until_said(red)
        await asyncio.sleep(0.5)  # many turns of the loop: said once, not again while it waits
        assert live.said(red) == 1
        assert (await second.open())["type"] == "waiting"
        await live.type("give red to the new phone", "Red is on the new phone now.")
        assert await first.until(lambda m: m["type"] == "signed_out") == {
            "type": "signed_out", "reason": "Another phone took Red, as the table agreed."}
        assert (await second.until(lambda m: m["type"] == "state"))["color"] == "red"
        await asyncio.sleep(0.3)
        assert live.said(red) == 1

    run(live.keypad, scenario)
    told = live.table.lines.index(f"BSAT1: {red}")
    assert live.table.threads[told] == "live-loop"  # in turn with everything else the box says
    assert not live.table.overlapped


def test_the_table_is_not_told_of_a_phone_that_no_longer_waits(live: Live) -> None:
    """While the table cannot hand a color over (it said "stop listening"), news waits; a phone
    that left, got its color when the other phone left, or was given it meanwhile is no news."""

    async def scenario(phone: Callable[[], Phone]) -> None:
        pin = live.keypad.pin
        await live.type("stop listening", "I stopped listening, and the game waits. Say start listening to go on.")
        phones = {color: (phone(), phone()) for color in ("red", "blue", "green", "yellow")}
        for color, (first, second) in phones.items():
            assert (await first.join(pin, color))[1]["waiting"] is False
            assert (await second.join(pin, color))[1]["waiting"] is True
        blue_left, green_first = phones["blue"][1], phones["green"][0]
        for leaving in (blue_left, green_first):
            async with leaving.client.post(live.keypad.url + "/api/leave", json={}) as response:
                assert response.status == 200
        assert live.keypad.hand_over("yellow")  # as the table decided
        assert live.keypad.waiting_colors() == ("red",)
        await asyncio.sleep(0.3)
        assert not [line for line in live.table.lines if "A new phone" in line]
        await live.type("start listening", "Listening again.")
        await live.until_said(waiting_said("red"))
        await asyncio.sleep(0.5)
        assert [line for line in live.table.lines if "A new phone" in line] == [f"BSAT1: {waiting_said('red')}"]
        # The phone waiting for Red goes, and another asks: a new phone, told again.
        async with phones["red"][1].client.post(live.keypad.url + "/api/leave", json={}) as response:
            assert response.status == 200
        assert (await phone().join(pin, "red"))[1]["waiting"] is True
        await live.until_said(waiting_said("red"), times=2)

    run(live.keypad, scenario)
    assert not live.table.overlapped


def test_news_of_waiting_phones_is_each_phone_once_from_any_thread() -> None:
    keypad = PhoneKeypad(colors=("red", "blue"))
    door = keypad.door
    door.join("a", door.pin, "red")
    assert keypad.newly_waiting() == ()
    waiting = door.join("b", door.pin, "red")
    assert keypad.newly_waiting() == ("red",)
    assert keypad.newly_waiting() == ()
    door.join("c", door.pin, "blue")
    door.join("d", door.pin, "blue")
    replaced = door.join("e", door.pin, "red")  # a third phone for Red: the one waiting now
    assert keypad.newly_waiting() == ("red", "blue")
    assert door.phone(waiting.token) is None and door.phone(replaced.token) is not None
    keypad.hand_over("blue")
    assert keypad.newly_waiting() == () and keypad.waiting_colors() == ("red",)

    many = PhoneKeypad(colors=("red",))
    many.door.join("a", many.door.pin, "red")
    many.door.join("b", many.door.pin, "red")
    news: list[tuple[str, ...]] = []
    threads = [threading.Thread(target=lambda: news.append(many.newly_waiting())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(news) == [()] * 7 + [("red",)]


def test_what_the_table_is_told_is_rendered_ahead_with_the_games_phrases() -> None:
    """Every line about phones, for every color a game's players may take on phones, is among
    that game's phrases, which `assistant setup` renders ahead; a game without phone colors
    has none of them."""
    with_colors = 0
    for name in GAMES:
        colors = game_spec(name).private_colors
        texts = {p.text for p in game_phrases(name, Config.from_text(""))}
        assert set(phone_phrases(colors)) <= texts, name
        assert not any("new phone" in text for text in texts if text not in phone_phrases(colors)), name
        with_colors += bool(colors)
    assert with_colors
    assert waiting_said("red") in phone_phrases(game_spec("omega-virus").private_colors)
    assert not any("new phone" in phrase for phrase in SESSION_PHRASES)
