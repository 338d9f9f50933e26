"""The box and its spoken menu, as logic: which game, switching and resuming, volume, listening,
shut down and its confirmations, with typed words and a temporary state folder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from assistant.box import Box, Games, Power
from assistant.config import Config
from assistant.engine import Command
from assistant.games import GAMES, game_spec, specs
from assistant.journal import find_unfinished
from assistant.menu import Menu, menu_phrases, menu_sentences, offered, question, title
from assistant.session import BOX_INTENTS, SESSION_PHRASES, Heard, PrintAnnouncer, Session
from assistant.volume import LOUDEST, VOLUME_FILE, Volume, gain
from tests.harness import state_of

QUESTION = "NARRATOR: Which game? The Omega Virus, Prologue, the card battle, or Battle of the Planets."


class PowerSwitch:
    """The injected power-off: notes each command it is asked to run; may fail."""

    def __init__(self, failure: str = "") -> None:
        self.commands: list[tuple[str, ...]] = []
        self.failure = failure

    def __call__(self, command: Sequence[str]) -> str:
        self.commands.append(tuple(command))
        return self.failure


def make_box(folder: Path | None, out: list[str], power: Power | None = None, seed: int = 5,
             menu_after_game: bool = True) -> Box:
    games = Games(lambda name: game_spec(name).settings_from_config(Config()), folder, seed)
    return Box(PrintAnnouncer(out.append), games, Volume.load(folder), power or Power(),
               menu_after_game=menu_after_game)


def menu_box(folder: Path) -> tuple[Box, list[str]]:
    out: list[str] = []
    box = make_box(folder, out)
    box.show_menu()
    return box, out


# ---------------------------------------------------------------------------------- the menu


def test_the_menu_asks_which_game_and_each_name_plays_it() -> None:
    assert offered() == ["omega-virus", "prologue", "msx-cards", "planets"]
    assert f"NARRATOR: {question(offered())}" == QUESTION
    sentences = menu_sentences(offered())
    for name in offered():
        said = title(name)
        assert sentences.match_all(said) == [Command("choose_game", {"game": name})], said
        assert sentences.match(f"let's play {said}") == Command("choose_game", {"game": name})


def test_a_game_added_as_the_guide_says_is_offered_and_played_through_the_menu(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/adding-a-game.md: one package and one line in GAMES, nothing else."""
    monkeypatch.setitem(GAMES, "dice-race", "tests.example_game")
    box, out = menu_box(tmp_path)
    assert out == [QUESTION.replace(", or Battle of the Planets.", ", Battle of the Planets, or the dice race.")]
    box.hear("what can I say")
    assert "the dice race" in out[-1]
    for button in ("1", "1", "R"):
        box.press([button])
    assert out[-2:] == ["NARRATOR: Battle of the Planets.", "NARRATOR: the dice race."]
    assert box.hear("let's play the dice race") == Heard.ACCEPTED
    assert isinstance(box.session, Session) and box.session.game_name == "dice-race"
    assert out[-1] == "NARRATOR: Dice race: first to the target wins. Red starts. Say roll."
    while not box.session.game.is_over():
        assert box.hear("roll the die") == Heard.ACCEPTED
    assert any(line.endswith("wins!") for line in out)
    said = {line.split(": ", 1)[1] for line in out[:5]}
    assert said <= {p.text for p in menu_phrases()}  # its name was rendered ahead with the menu's


def test_every_menu_sentence_stands_for_exactly_one_command() -> None:
    sentences = menu_sentences(offered())
    count = 0
    for text, command in sentences.expand():
        assert sentences.match_all(text) == [command], text
        count += 1
    assert count > 30
    for intent in sentences.intents.values():
        assert [c.intent for c in sentences.match_all(intent.help)] == [intent.name], intent.help
    # the menu offers no game commands, nor pause, new game or undo
    assert not {"pause", "resume", "new_game", "undo"} & set(sentences.intents)


def test_every_game_has_the_box_commands() -> None:
    for spec in specs():
        sentences = spec.sentences()
        assert BOX_INTENTS <= set(sentences.intents), spec.name
        # handing a color to a new phone: only where players take colors on phones
        assert ("phone_hand_over" in sentences.intents) == bool(spec.private_colors), spec.name
        assert sentences.match("volume five") == Command("volume", {"level": "5"}), spec.name
        assert sentences.match("volume 10") == Command("volume", {"level": "10"}), spec.name
        assert sentences.match("switch game") == Command("main_menu"), spec.name


def test_what_the_menu_says_is_among_its_phrases(tmp_path: Path) -> None:
    """(rendered ahead into the voice cache when the menu starts)"""
    box, out = menu_box(tmp_path)
    box.hear("what can I say")
    box.hear("banana")
    for button in ("0", "2", "R", "R", "R", "R"):
        box.press([button])
    said = {line.split(": ", 1)[1] for line in out}
    assert len(said) == 9
    assert said == {p.text for p in menu_phrases()}


def test_a_name_starts_that_game(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    assert out == [QUESTION]
    assert box.hear("the omega virus") == Heard.ACCEPTED
    assert out[-1] == "BSAT1: Enter skill."
    assert isinstance(box.session, Session) and box.session.game_name == "omega-virus"
    assert box.sentences is box.session.sentences


def test_what_is_not_a_game_is_asked_again(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    assert box.hear("pizza with pepperoni") == Heard.NOT_UNDERSTOOD
    assert out[-1] == "NARRATOR: Say again? " + QUESTION.split(": ", 1)[1]
    assert box.hear("yes") == Heard.NOT_UNDERSTOOD  # nothing was asked
    assert box.hear("new game") == Heard.NOT_UNDERSTOOD  # a game's command, not the menu's
    assert box.hear("repeat") == Heard.SESSION and out[-1] == QUESTION
    assert box.hear("main menu") == Heard.SESSION and out[-1] == QUESTION
    assert box.in_menu


def test_the_keypad_names_the_games_in_turn_and_0_plays_the_one_named(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    box.press(["0"])
    assert out[-1] == "NARRATOR: Press R to hear the games' names, then 0 to play the one named."
    box.press(["2"])
    assert out[-1] == "NARRATOR: On the keypad, R names the next game, 1 the one before, and 0 plays it."
    for name in ["The Omega Virus", "Prologue", "the card battle", "Battle of the Planets", "The Omega Virus"]:
        box.press(["R"])
        assert out[-1] == f"NARRATOR: {name}."
    box.press(["1"])
    assert out[-1] == "NARRATOR: Battle of the Planets."
    box.press(["0"])
    assert isinstance(box.session, Session) and box.session.game_name == "planets"
    assert out[-1].startswith("ZARK: Who is playing?")


# ---------------------------------------------------------------------------------- switching


def test_main_menu_is_confirmed_and_the_game_is_kept_and_resumed_by_name(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    box.hear("the omega virus")
    box.hear("skill zero")
    box.press(["1", "2"])
    assert out[-1] == "BSAT1: Blue, enter secret code."
    session = box.session
    assert session is not None and session.journal is not None
    before = state_of(session.game)
    entries = list(session.journal.entries)

    assert box.hear("main menu") == Heard.SESSION
    assert out[-1] == "BSAT1: Go to the main menu? This game is kept. Say yes or no."
    assert box.hear("skip") == Heard.NOT_ALLOWED and out[-1] == "BSAT1: Say yes or no."
    assert box.press(["2"]) == Heard.NOT_ALLOWED and out[-1] == "BSAT1: Say yes or no."
    assert box.hear("no") == Heard.SESSION and out[-1] == "BSAT1: Carrying on."
    assert box.session is session and state_of(session.game) == before
    assert session.journal.entries == entries  # nothing the box did is in the journal

    box.hear("switch game")
    box.hear("yes")
    assert out[-1] == QUESTION and box.in_menu
    assert find_unfinished(tmp_path, "omega-virus") is not None  # kept
    box.hear("prologue")
    assert box.session is not None and box.session.game_name == "prologue"
    box.hear("main menu")
    box.hear("yes")
    box.hear("the omega virus")
    assert out[-2:] == ["BSAT1: Game resumed. Say new game to start over.", "BSAT1: Blue, enter secret code."]
    assert box.session is not None and state_of(box.session.game) == before


def test_a_new_game_question_gives_way_to_the_box_question(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    box.hear("the omega virus")
    box.hear("new game")
    assert out[-1].endswith("This one will be lost. Say yes or no.")
    box.hear("main menu")
    box.hear("no")
    assert box.session is not None and not box.session.confirming_new_game
    assert box.hear("yes") == Heard.NOT_UNDERSTOOD  # nothing is asked any more


def test_a_game_over_for_good_goes_back_to_the_menu() -> None:
    """The example game, the dice race, is over fast (with no journal it cannot be undone)."""
    out: list[str] = []
    box = make_box(None, out)
    box.start_game("dice-race")
    session = box.session
    assert session is not None
    for _ in range(200):
        if box.in_menu:
            break
        box.hear("roll")
    assert box.in_menu and out[-1] == QUESTION and session.game.is_over()


def test_a_game_over_that_could_be_undone_leaves_for_the_menu_unasked(tmp_path: Path) -> None:
    out: list[str] = []
    box = make_box(tmp_path, out)
    box.start_game("dice-race")
    while box.session is not None and not box.session.game.is_over():
        box.hear("roll")
    assert not box.in_menu  # "If that was not right, say undo."
    box.hear("main menu")
    assert box.in_menu and out[-1] == QUESTION


def test_with_a_game_named_play_stays_open_after_the_game() -> None:
    """No menu to go back to: the game that is over stays, for "new game" (or "shut down")."""
    out: list[str] = []
    box = make_box(None, out, menu_after_game=False)
    box.start_game("dice-race")
    session = box.session
    assert session is not None
    for _ in range(200):
        if session.game.is_over():
            break
        box.hear("roll")
    assert session.game.is_over() and not box.finished and not box.in_menu
    assert out[-1] == "NARRATOR: Say new game to play again."
    box.hear("roll")
    assert out[-1] != "NARRATOR: Say new game to play again." and not box.finished  # said once


# ---------------------------------------------------------------------------------- volume


def test_louder_quieter_and_a_level_change_the_gain_and_are_kept(tmp_path: Path) -> None:
    out: list[str] = []
    gains: list[float] = []
    games = Games(lambda name: {}, tmp_path)
    box = Box(PrintAnnouncer(out.append), games, Volume.load(tmp_path), on_volume=gains.append)
    box.show_menu()
    assert gains == [1.0]  # told at once: the level kept, or the loudest
    assert box.hear("louder") == Heard.NOT_ALLOWED and out[-1] == "NARRATOR: The volume is at its loudest."
    assert box.hear("quieter") == Heard.SESSION and out[-1] == "NARRATOR: Volume 9."
    assert box.hear("set the volume to three") == Heard.SESSION and out[-1] == "NARRATOR: Volume 3."
    assert box.hear("volume up") == Heard.SESSION and out[-1] == "NARRATOR: Volume 4."
    assert gains[1:] == [gain(9), gain(3), gain(4)]
    assert gain(10) == 1.0 and gain(0) == 0.0 and gain(5) == pytest.approx(10 ** (-15 / 20))
    assert Volume.load(tmp_path).level == 4  # across a restart
    assert (tmp_path / VOLUME_FILE).read_text() == '{"volume": 4}\n'
    box.hear("volume zero")
    assert box.hear("quieter") == Heard.NOT_ALLOWED and out[-1] == "NARRATOR: The volume is at its lowest."


def test_a_volume_out_of_range_gets_a_clear_answer_and_changes_nothing(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    box.hear("volume five")
    for words in ("volume eleven", "volume 20"):
        assert box.hear(words) == Heard.NOT_ALLOWED
        assert out[-1] == "NARRATOR: The volume goes from 0 to 10: say volume five, for example."
    assert box.volume.level == 5 and Volume.load(tmp_path).level == 5


def test_a_kept_volume_that_cannot_be_used_gives_the_default_and_says_why(tmp_path: Path) -> None:
    for text in ('{"volume": 11}', "{nonsense", '{"volume": true}', '["volume"]'):
        (tmp_path / VOLUME_FILE).write_text(text)
        volume = Volume.load(tmp_path, default=7)
        assert volume.level == 7 and str(tmp_path / VOLUME_FILE) in volume.problem, text
    assert Volume.load(tmp_path / "nowhere", default=6) == Volume(6, tmp_path / "nowhere" / VOLUME_FILE)


def test_a_volume_that_cannot_be_kept_is_used_anyway(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    volume = Volume.load(blocker)
    assert not volume.set(3)
    assert volume.level == 3 and "cannot be kept" in volume.problem
    assert list(tmp_path.iterdir()) == [blocker]
    with pytest.raises(ValueError):
        volume.set(LOUDEST + 1)


def test_phone_keypad_says_the_address_and_pin_or_how_to_get_one(tmp_path: Path) -> None:
    """In the menu and in a game: what the box's on_phone gives. With no phones the phone
    commands are not listened for (one sentence less for table talk to be taken as); typed,
    they say how to turn phones on."""
    from assistant.box import NO_PHONE_KEYPAD

    box, out = menu_box(tmp_path)
    assert "phone_keypad" not in box.allowed_intents()
    assert box.hear("phone keypad") == Heard.SESSION
    assert out[-1] == f"NARRATOR: {NO_PHONE_KEYPAD}"
    box.on_phone = lambda: "Phone keypad: open 1 9 2 dot 1 6 8 dot 1 dot 2 0, port 8 4 7 0, PIN 4 7 1 9."
    box.show_menu()
    assert "phone_keypad" in box.allowed_intents()
    assert box.hear("phone keypad") == Heard.SESSION
    assert out[-1].endswith("PIN 4 7 1 9.")
    box.hear("the omega virus")
    assert box.session is not None
    before = state_of(box.session.game)
    assert box.hear("phone pin") == Heard.SESSION
    assert out[-1].endswith("PIN 4 7 1 9.")
    assert state_of(box.session.game) == before  # the game is not touched


def test_the_table_gives_a_color_to_the_new_phone_by_voice(tmp_path: Path) -> None:
    """A second phone waits for Red; "give red to the new phone" hands it over (the real
    PhoneKeypad's door, no server needed); the game is not touched."""
    from assistant.live.run import hand_over_said
    from assistant.phone import PhoneKeypad, PhoneSettings

    phone = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0), colors=("red", "blue"))
    first = phone.door.join("10.0.0.2", phone.pin, "red")
    second = phone.door.join("10.0.0.3", phone.pin, "red")
    assert second.waiting and phone.waiting_colors() == ("red",)
    box, out = menu_box(tmp_path)
    box.on_phone = phone.spoken_announcement
    box.on_hand_over = lambda color: hand_over_said(phone, color)
    box.hear("the omega virus")
    assert box.session is not None
    before = state_of(box.session.game)
    assert box.hear("the new phone is blue") == Heard.SESSION
    assert out[-1] == "BSAT1: No new phone is asking for Blue."
    assert box.hear("give red to the new phone") == Heard.SESSION
    assert out[-1] == "BSAT1: Red is on the new phone now."
    assert phone.waiting_colors() == () and not second.waiting and first.token != second.token
    assert state_of(box.session.game) == before


def test_the_live_start_finds_the_phone_keypad_among_the_sources(tmp_path: Path) -> None:
    from assistant.live.keypad import CharKeypad
    from assistant.live.keypads import Keypads
    from assistant.live.run import phone_keypad
    from assistant.phone import PhoneKeypad, PhoneSettings

    phone = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0))
    fifo = CharKeypad(tmp_path / "keys")
    assert phone_keypad(Keypads([fifo, phone])) is phone
    assert phone_keypad(phone) is phone
    assert phone_keypad(fifo) is None and phone_keypad(None) is None


# ---------------------------------------------------------------------------------- listening


def test_stopped_listening_takes_nothing_but_start_listening(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    box.hear("the omega virus")
    box.hear("skill zero")
    session = box.session
    assert session is not None and session.journal is not None
    assert box.next_event_in() is not None
    assert box.hear("stop listening") == Heard.SESSION
    assert out[-1] == "BSAT1: I stopped listening, and the game waits. Say start listening to go on."
    said = len(out)
    entries = list(session.journal.entries)
    before = state_of(session.game)
    assert box.allowed_intents() == {"start_listening"}
    assert box.paused and box.time_stands_still and box.next_event_in() is None
    for words in ("skip", "banana", "shut down", "main menu", "volume two", "what can I say"):
        assert box.hear(words) == Heard.IGNORED, words
    assert box.press(["1", "2"]) == Heard.IGNORED
    assert box.apply(Command("skip")) == Heard.IGNORED
    box.advance(600.0)  # the game clock waits too
    assert out[said:] == [] and session.journal.entries == entries and state_of(session.game) == before
    assert box.hear("start listening") == Heard.SESSION and out[-1] == "BSAT1: Listening again."
    assert not box.paused and box.hear("skip") == Heard.ACCEPTED
    # listened for awake too: a player unsure whether it listens is told, not put to sleep
    assert "start_listening" in box.allowed_intents() and "stop_listening" in box.allowed_intents()
    assert box.hear("start listening") == Heard.SESSION and out[-1] == "BSAT1: I am listening."


# ---------------------------------------------------------------------------------- shut down


def test_shut_down_without_allow_poweroff_only_ends(tmp_path: Path) -> None:
    switch = PowerSwitch()
    out: list[str] = []
    box = make_box(tmp_path, out, Power(False, ("poweroff",), switch))
    box.show_menu()
    box.hear("the omega virus")
    box.hear("skill zero")
    assert box.hear("shut down") == Heard.SESSION and out[-1] == "BSAT1: Shut down? Say yes or no."
    assert box.hear("no") == Heard.SESSION and not box.finished
    box.hear("power off")
    assert box.hear("yes") == Heard.SESSION
    assert out[-1] == ("BSAT1: Goodbye. The assistant stops; the box stays on, as allow_poweroff is off "
                       "in the settings.")
    assert box.finished
    box.close()
    assert switch.commands == []
    assert find_unfinished(tmp_path, "omega-virus") is not None  # kept for next time


def test_shut_down_with_allow_poweroff_powers_off_once_when_closed(tmp_path: Path) -> None:
    switch = PowerSwitch()
    box, out = menu_box(tmp_path)
    box.power = Power(True, ("sudo", "poweroff"), switch)
    box.hear("shut down")
    assert out[-1] == "NARRATOR: Shut down? Say yes or no."
    box.hear("yes")
    assert out[-1] == "NARRATOR: Shutting down. Goodbye." and box.finished
    assert switch.commands == []  # not before the loop has closed everything
    box.close()
    box.close()
    assert switch.commands == [("sudo", "poweroff")]


def test_a_power_off_that_fails_is_said(tmp_path: Path) -> None:
    box, out = menu_box(tmp_path)
    box.power = Power(True, ("poweroff",), PowerSwitch("Interactive authentication required."))
    box.hear("shut down")
    box.hear("yes")
    box.close()
    assert out[-1] == "NARRATOR: I could not power off. Switch the box off at the plug."


def test_power_settings_from_config() -> None:
    assert Power.from_config(Config()).allowed is False
    assert Power.from_config(Config()).command == ("systemctl", "poweroff")
    config = Config.from_text("allow_poweroff: true\npoweroff_command: sudo /sbin/poweroff now\n")
    power = Power.from_config(config)
    assert power.allowed and power.command == ("sudo", "/sbin/poweroff", "now") and not config.problems
    config = Config.from_text("allow_poweroff: maybe\npoweroff_command: '\"unclosed'\n")
    power = Power.from_config(config)
    assert not power.allowed and power.command == ("systemctl", "poweroff")
    assert len(config.problems) == 2 and "line 1" in config.problems[0] and "line 2" in config.problems[1]


# ---------------------------------------------------------------------------------- on its own


def test_a_session_on_its_own_does_not_take_the_box_commands() -> None:
    out: list[str] = []
    session = Session.new("omega-virus", 1, {}, PrintAnnouncer(out.append), None)
    session.start()
    assert not BOX_INTENTS & session.allowed_intents()
    assert session.hear("shut down") == Heard.NOT_UNDERSTOOD
    assert out[-1].startswith("BSAT1: Say again?")


def test_what_the_box_says_in_a_game_is_among_the_session_phrases(tmp_path: Path) -> None:
    """(so it is rendered ahead with every game's phrases; only "Volume 5." is live)"""
    box, out = menu_box(tmp_path)
    box.hear("the omega virus")
    said = len(out)
    for words in ("main menu", "skip", "no", "louder", "volume eleven", "quieter", "stop listening",
                  "start listening", "start listening", "volume zero", "quieter", "shut down", "yes"):
        box.hear(words)
    lines = [line.split(": ", 1)[1] for line in out[said:]]
    assert [line for line in lines if line not in SESSION_PHRASES] == ["Volume 9.", "Volume 0."]
    assert len(set(lines)) == 13


def test_menu_as_front_has_no_clock() -> None:
    menu = Menu(PrintAnnouncer(lambda line: None))
    assert menu.time_stands_still and menu.next_event_in() is None and not menu.finished
