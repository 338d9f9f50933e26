"""Battle of the Planets: rule tests, table by table, driven through the real sentence matcher."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from assistant.config import Config
from assistant.engine import Command, NotAllowed, Say
from assistant.games import planets
from assistant.games.planets.engine import MONSTER_CARDS, PlanetsGame, Segment, default_segments

SENTENCES = planets.sentences()


def command(text: str) -> Command:
    found = SENTENCES.match_all(text)
    assert found, f"not understood: {text!r}"
    return found[0]


def game(players: Sequence[str] = ("red", "blue", "green"), seed: int = 1,
         spinner: list[list[int | None]] | None = None) -> PlanetsGame:
    settings: dict[str, Any] = {"players": list(players)}
    if spinner is not None:
        settings["spinner"] = spinner
    g = planets.create(seed, settings)
    g.start()
    return g


def play(g: PlanetsGame, script: Sequence[str]) -> list[str]:
    said: list[str] = []
    for text in script:
        said += [o.text for o in g.handle(command(text)) if isinstance(o, Say)]
    return said


def snapshot(g: PlanetsGame) -> Any:
    ships = tuple((s.color, s.name, s.unsafe, s.safe, s.at_blast_off) for s in g.ships)
    t = g.turn
    return ships, g.current, (t.blast_off, t.spin, t.intruder_landed, t.captured), g.pile, g.winner, \
        g.rng.getstate()


#: Everyone blasts off: red, blue and green are on the board and it is red's turn to spin.
ON_BOARD = ["next", "next", "next"]
#: Spinner with one segment, so a spin is known in advance.
FOUR_TWO: list[list[int | None]] = [[4, 2]]


def cards(g: PlanetsGame) -> dict[str, tuple[int, int]]:
    return {s.color: (s.unsafe, s.safe) for s in g.ships}


# --------------------------------------------------------------------------- sentences


def test_names_and_ship_colors_collide_with_no_other_word() -> None:
    names = {v.out for v in SENTENCES.lists["name"]}
    colors = {v.out for v in SENTENCES.lists["ship"]}
    fixed = SENTENCES.vocabulary({"status", "repeat", "undo", "help", "pause", "resume", "new_game", "yes",
                                  "no"}) | {"spin", "spins", "next", "done", "intruder", "earth", "landed",
                                            "caught", "got", "reached", "blasted", "called", "named", "me"}
    assert not names & colors
    assert not (names | colors) & fixed


# --------------------------------------------------------------------------- set-up and turns


def test_players_are_asked_when_not_configured() -> None:
    g = planets.create(1, {})
    said = [o.text for o in g.start() if isinstance(o, Say)]
    assert said[-1].startswith("Who is playing? Say the ship colors in turn order")
    assert g.allowed_intents() == {"players", "status", "repeat"}
    assert play(g, ["red, yellow and blue"])[0] == ("Red, Yellow and Blue are playing, in that order. "
                                                   "Every ship starts on the Blast-Off area.")
    assert [s.color for s in g.ships] == ["red", "yellow", "blue"]


@pytest.mark.parametrize("text, count", [("red and blue", 2), ("players green yellow and red", 3),
                                         ("red blue green and yellow are playing", 4)])
def test_two_to_four_players(text: str, count: int) -> None:
    g = planets.create(1, {})
    g.start()
    play(g, [text])
    assert len(g.ships) == count


def test_first_turn_is_a_blast_off_without_spin() -> None:
    g = game()
    assert g.allowed_intents() == {"next", "name", "status", "repeat"}
    with pytest.raises(NotAllowed, match="Red blasts off this turn: no spin"):
        g.handle(command("spin"))
    assert play(g, ["next"]) == ["Blue, blast off: put your ship on a red-dot space, not on another ship "
                                 "or the Intruder. No spin this turn. Then say next."]
    assert not g.ships[0].at_blast_off and g.ships[1].at_blast_off


def test_turn_order_wraps_around() -> None:
    g = game(spinner=FOUR_TWO)
    said = play(g, ON_BOARD + ["spin", "next", "spin", "next", "spin", "next"])
    assert said[-1] == "Red's turn. Say spin."
    assert said.count("Intruder moves 4. G-Force moves 2.") == 3


def test_spin_announces_intruder_then_g_force() -> None:
    assert play(game(spinner=FOUR_TWO), ON_BOARD + ["spin"])[-1] == "Intruder moves 4. G-Force moves 2."
    assert play(game(spinner=[[3, None]]), ON_BOARD + ["spin"])[-1] == (
        "Intruder moves 3. Red spot! Rocket your ship as far as you like in a straight line.")


def test_the_spinner_draws_each_segment_evenly_from_the_seeded_rng() -> None:
    g = game(players=["red", "blue"], seed=5)
    play(g, ["next", "next"])
    seen: Counter[Segment] = Counter()
    for _ in range(6000):
        g.handle(Command("spin"))
        assert g.turn.spin is not None
        seen[g.turn.spin] += 1
        g.handle(Command("next"))
    assert set(seen) == set(default_segments())
    assert all(400 < n < 600 for n in seen.values()), seen  # 12 segments: 500 each on average
    again = game(players=["red", "blue"], seed=5)
    play(again, ["next", "next"])
    first = [play(again, ["spin", "next"])[0] for _ in range(20)]
    replay = game(players=["red", "blue"], seed=5)
    play(replay, ["next", "next"])
    assert [play(replay, ["spin", "next"])[0] for _ in range(20)] == first


# --------------------------------------------------------------------------- landings (table)

LANDINGS = [
    # said after ON_BOARD + spin (red's turn); then each ship's (unsafe, safe) cards, and the pile
    (["red landed on the intruder"], {"red": (1, 0), "blue": (0, 0), "green": (0, 0)}, 11),
    (["i caught the intruder", "next", "spin", "blue landed on red"],
     {"red": (0, 0), "blue": (1, 0), "green": (0, 0)}, 11),
    (["landed on the intruder", "next", "spin", "landed on the intruder", "next", "spin",
      "the intruder landed on blue"], {"red": (1, 0), "blue": (0, 0), "green": (0, 0)}, 11),
    (["landed on the intruder", "red reached earth"], {"red": (0, 1), "blue": (0, 0), "green": (0, 0)}, 11),
    (["landed on the intruder", "next", "spin", "the intruder landed on red"],
     {"red": (0, 0), "blue": (0, 0), "green": (0, 0)}, 12),
    (["landed on the intruder", "next", "spin", "blue caught red", "next", "spin", "green landed on blue"],
     {"red": (0, 0), "blue": (0, 0), "green": (1, 0)}, 11),
]


@pytest.mark.parametrize("script, expected, pile", LANDINGS)
def test_monster_cards_move_by_the_rules(script: list[str], expected: dict[str, tuple[int, int]],
                                         pile: int) -> None:
    g = game(spinner=FOUR_TWO)
    play(g, ON_BOARD + ["spin"] + script)
    assert cards(g) == expected
    assert g.pile == pile
    assert g.accounted_cards() == MONSTER_CARDS


def test_landing_on_the_intruder_draws_a_card_and_says_rocket_away() -> None:
    g = game(spinner=FOUR_TWO)
    said = play(g, ON_BOARD + ["spin", "red landed on the intruder"])
    assert said[-3:] == ["Red caught the Intruder! Take a Monster card. Red has 1 Monster card, 1 unsafe. "
                         "11 left in the pile.",
                         "Rocket away in a straight line, as far as you like, but not onto another ship.",
                         "Say next when your move is done."]
    assert g.allowed_intents() == {"next", "earth", "name", "status", "repeat"}


def test_intruder_takes_all_unsafe_cards_back_to_the_pile_and_sends_the_ship_to_blast_off() -> None:
    g = game(players=["red", "blue"], spinner=FOUR_TWO)
    play(g, ["next", "next", "spin", "landed on the intruder", "next", "spin", "landed on the intruder",
             "next", "spin", "landed on the intruder", "next"])
    assert cards(g) == {"red": (2, 0), "blue": (1, 0)}
    said = play(g, ["spin", "the intruder landed on red"])
    assert said[-2:] == ["The Intruder got Red! Red loses 2 Monster cards to the pile, now 11.",
                         "Red, back to the Blast-Off area; blast off on your next turn."]
    assert cards(g) == {"red": (0, 0), "blue": (1, 0)} and g.pile == 11
    assert g.ships[0].at_blast_off
    assert play(g, ["next"])[-1].startswith("Red, blast off:")


def test_intruder_on_a_ship_with_only_safe_cards_just_sends_it_to_blast_off() -> None:
    g = game(players=["red", "blue"], spinner=FOUR_TWO)
    play(g, ["next", "next", "spin", "landed on the intruder", "earth", "spin", "intruder landed on me",
             "next", "next"])
    said = play(g, ["spin", "the intruder got red"])
    assert said[-3:] == ["The Intruder got Red! No unsafe cards to lose.",
                         "Red, back to the Blast-Off area; blast off on your next turn.",
                         "Blue's turn. Say spin."]
    assert cards(g) == {"red": (0, 1), "blue": (0, 0)}


def test_the_intruder_landing_on_the_player_whose_turn_it_is_ends_the_turn() -> None:
    g = game(spinner=FOUR_TWO)
    said = play(g, ON_BOARD + ["spin", "the intruder landed on me"])
    assert said[-1].startswith("Blue's turn. Say spin.")
    assert g.current == 1 and g.ships[0].at_blast_off


def test_landing_on_a_player_takes_one_unsafe_card() -> None:
    g = game(spinner=FOUR_TWO)
    play(g, ON_BOARD + ["spin", "landed on the intruder", "next", "spin", "landed on the intruder", "next",
                        "spin", "green landed on red"])
    assert cards(g) == {"red": (0, 0), "blue": (1, 0), "green": (1, 0)}
    play(g, ["next", "spin", "red landed on blue"])
    assert cards(g) == {"red": (1, 0), "blue": (0, 0), "green": (1, 0)}


def test_landing_on_a_player_with_no_unsafe_cards_takes_nothing() -> None:
    g = game(spinner=FOUR_TWO)
    said = play(g, ON_BOARD + ["spin", "red landed on blue"])
    assert said[-3:] == ["Blue has no cards, so Red takes nothing.",
                         "Rocket away in a straight line, as far as you like, but not onto another ship or "
                         "the Intruder.", "Say next when your move is done."]
    assert cards(g) == {"red": (0, 0), "blue": (0, 0), "green": (0, 0)}


def test_earth_makes_cards_safe_and_sends_the_ship_to_blast_off() -> None:
    g = game(spinner=FOUR_TWO)
    said = play(g, ON_BOARD + ["spin", "landed on the intruder", "red reached earth"])
    assert said[-3:] == ["Red reached Earth! 1 Monster card made safe; Red has 1 safe.",
                         "Red, back to the Blast-Off area; blast off on your next turn.",
                         "Blue's turn. Say spin."]
    assert cards(g) == {"red": (0, 1), "blue": (0, 0), "green": (0, 0)}
    assert g.ships[0].at_blast_off


def test_earth_with_only_safe_cards_is_refused_and_changes_nothing() -> None:
    g = game(players=["red", "blue"], spinner=FOUR_TWO)
    play(g, ["next", "next", "spin", "landed on the intruder", "earth", "spin", "next", "next", "spin", "next",
             "spin"])
    assert cards(g)["red"] == (0, 1) and g.current == 0
    state = snapshot(g)
    with pytest.raises(NotAllowed) as error:
        g.handle(command("red reached earth"))
    assert str(error.value) == ("Red has no unsafe Monster cards, and you can only go to the Earth space "
                                "to make a card safe. Say next when your move is done.")
    assert snapshot(g) == state


def test_three_monster_cards_and_earth_wins() -> None:
    g = game(players=["green", "red"], spinner=FOUR_TWO)
    play(g, ["next", "next"])
    for _ in range(2):
        play(g, ["spin", "green landed on the intruder", "next", "spin", "next"])
    said = play(g, ["spin", "green landed on the intruder"])
    assert said[-2] == "Green, head for Earth to win!"
    assert not g.is_over()
    assert play(g, ["green reached earth"]) == ["Green reached Earth with 3 Monster cards!",
                                                "Green wins the Battle of the Planets!"]
    assert g.is_over() and g.winner == 0
    assert g.allowed_intents() == {"status", "repeat"}


def test_safe_and_unsafe_cards_both_count_towards_three() -> None:
    g = game(players=["green", "red"], spinner=FOUR_TWO)
    play(g, ["next", "next"])
    play(g, ["spin", "landed on the intruder", "next", "spin", "next",
             "spin", "landed on the intruder", "earth", "spin", "next", "next", "spin", "next",
             "spin", "landed on the intruder"])
    assert cards(g)["green"] == (1, 2)
    play(g, ["earth"])
    assert g.is_over()


def test_an_empty_pile_gives_no_card() -> None:
    g = game(players=["red", "blue"], spinner=FOUR_TWO)
    play(g, ["next", "next"])
    g.pile = 0
    g.ships[1].safe = MONSTER_CARDS  # all twelve safe with blue (a state the test sets up by hand)
    said = play(g, ["spin", "landed on the intruder"])
    assert said[1] == "Red caught the Intruder, but the Monster pile is empty: no card to take."
    assert g.accounted_cards() == MONSTER_CARDS


def test_names_can_be_used_for_ships() -> None:
    g = game(spinner=FOUR_TWO)
    assert play(g, ["red is anna"]) == ["Red is Anna."]
    said = play(g, ON_BOARD + ["spin", "anna landed on the intruder"])
    assert "Anna's turn. Say spin." in said
    assert said[-3].startswith("Anna caught the Intruder! Take a Monster card. Anna has 1 Monster card")
    assert cards(g)["red"] == (1, 0)
    assert play(g, ["next", "spin", "blue caught anna"])[-3] == (
        "Blue takes an unsafe Monster card from Anna. Blue has 1 Monster card; Anna has no Monster cards.")


# --------------------------------------------------------------------------- not allowed

NOT_ALLOWED = [
    ([], "spin", "Red blasts off this turn: no spin."),
    ([], "red landed on the intruder", "It is Red's blast-off turn: no spin, so nothing lands"),
    ([], "red green", "The players are already set: Red, Blue and Green."),
    (ON_BOARD, "next", "Red has not spun yet. Say spin."),
    (ON_BOARD, "landed on the intruder", "Spin first: say spin. It is Red's turn."),
    (ON_BOARD, "blue landed on the intruder", "It is Red's turn, not Blue's."),
    (ON_BOARD, "yellow reached earth", "Yellow is not playing. The players are Red, Blue and Green."),
    (ON_BOARD + ["spin"], "spin", "Red already spun: Intruder moves 4. G-Force moves 2. Say next"),
    (ON_BOARD + ["spin"], "blue landed on the intruder", "It is Red's turn, not Blue's."),
    (ON_BOARD + ["spin"], "red landed on red", "A ship cannot land on itself."),
    (ON_BOARD + ["spin"], "red landed on yellow", "Yellow is not playing."),
    (ON_BOARD + ["spin"], "red landed on sam", "Sam is not playing."),
    (ON_BOARD + ["spin", "landed on the intruder"], "landed on the intruder",
     "Red already landed on someone this turn: rocket away, then say next."),
    (ON_BOARD + ["spin", "landed on the intruder"], "red landed on blue", "Red already landed on someone"),
    (ON_BOARD + ["spin", "landed on the intruder"], "the intruder landed on blue",
     "The Intruder moves before Red's ship"),
    (ON_BOARD + ["spin", "intruder landed on blue"], "intruder landed on green",
     "The Intruder moves only once a turn."),
    (ON_BOARD + ["spin", "intruder landed on blue"], "red landed on blue",
     "Blue is on the Blast-Off area, not on the board."),
    (["red is anna"], "blue is anna", "Anna is already playing the red ship."),
    (["next"], "the intruder landed on red", "It is Blue's blast-off turn"),
    # one way of naming both ships: colors, with the name of a named one; names when both have one
    (["red is anna", "next"], "red reached earth", "It is Blue's turn, not Red's (Anna's)."),
    (["red is anna", "next"], "anna reached earth", "It is Blue's turn, not Red's (Anna's)."),
    (["red is anna"], "blue reached earth", "It is Red's (Anna's) turn, not Blue's."),
    (["red is anna", "blue is ben", "next"], "red reached earth", "It is Ben's turn, not Anna's."),
    (["red is anna"] + ON_BOARD, "yellow reached earth",
     "Yellow is not playing. The players are Red (Anna), Blue and Green."),
    # "You can only go to the Earth space to make a card SAFE."
    (ON_BOARD + ["spin"], "red reached earth",
     "Red has no Monster cards, and you can only go to the Earth space to make a card safe. "
     "Say next when your move is done."),
]


@pytest.mark.parametrize("before, text, reason", NOT_ALLOWED)
def test_not_allowed_says_why_and_changes_nothing(before: list[str], text: str, reason: str) -> None:
    g = game(spinner=FOUR_TWO)
    play(g, before)
    state = snapshot(g)
    with pytest.raises(NotAllowed) as error:
        g.handle(command(text))
    assert str(error.value).startswith(reason), str(error.value)
    assert snapshot(g) == state


def test_no_ship_on_the_board_for_the_intruder() -> None:
    g = game(players=["red", "blue"], spinner=FOUR_TWO)
    play(g, ["next", "next", "spin", "intruder landed on me", "spin"])
    assert "landed_player" not in g.allowed_intents()
    assert "intruder_landed" in g.allowed_intents()  # the ship whose turn it is is always on the board
    with pytest.raises(NotAllowed, match="No other ship is on the board."):
        g.handle(command("blue landed on red"))


def test_players_must_differ() -> None:
    g = planets.create(1, {})
    g.start()
    with pytest.raises(NotAllowed, match="different color"):
        g.handle(command("red and red"))
    with pytest.raises(NotAllowed, match="First tell me who is playing. Say the ship colors"):
        g.handle(command("spin"))


def test_game_over_refuses_play() -> None:
    g = game(players=["green", "red"], spinner=FOUR_TWO)
    play(g, ["next", "next"])
    for _ in range(3):
        play(g, ["spin", "landed on the intruder", "next", "spin", "next"])
    play(g, ["spin", "earth"])
    with pytest.raises(NotAllowed, match="The game is over: Green won. Say new game"):
        g.handle(command("spin"))


# --------------------------------------------------------------------------- repeat and status

REPEAT = [
    ([], "Red, blast off: put your ship on a red-dot space, not on another ship or the Intruder. "
         "No spin this turn. Then say next."),
    (ON_BOARD, "Red's turn. Say spin."),
    (ON_BOARD + ["spin"], "Say next when your move is done."),
    (ON_BOARD + ["spin", "landed on the intruder"], "Red, rocket away, then say next."),
]


@pytest.mark.parametrize("before, last", REPEAT)
def test_repeat_tells_where_the_game_stands(before: list[str], last: str) -> None:
    g = game(spinner=FOUR_TWO)
    play(g, before)
    state = snapshot(g)
    said = play(g, ["repeat"])
    assert said[-1] == last
    if "spin" in before:
        assert said[0] == "Red's turn. Intruder moves 4. G-Force moves 2."
    assert snapshot(g) == state


def test_status_lists_every_ship_and_the_pile() -> None:
    g = game(spinner=FOUR_TWO)
    play(g, ON_BOARD + ["spin", "landed on the intruder", "earth", "spin", "landed on the intruder"])
    assert play(g, ["status"]) == ["Red: 1 Monster card, 1 safe, at Blast-Off.",
                                   "Blue: 1 Monster card, 0 safe, on the board.",
                                   "Green: no Monster cards, on the board.",
                                   "10 Monster cards in the pile.", "It is Blue's turn."]


# --------------------------------------------------------------------------- settings and data


def settings(text: str) -> tuple[dict[str, Any], list[str]]:
    config = Config.from_text(text)
    return planets.settings_from_config(config), config.problems


def test_default_settings_use_the_packaged_spinner() -> None:
    got, problems = settings("")
    assert problems == []
    assert got["players"] == []
    assert [Segment(i, g) for i, g in got["spinner"]] == list(default_segments())


def test_packaged_spinner_is_labelled_an_approximation() -> None:
    text = resources.files("assistant.games.planets").joinpath("spinner.yaml").read_text(encoding="utf-8")
    assert "APPROXIMATION" in text
    assert "approximation" in yaml.safe_load(text)["source"]


def test_configured_players_and_spinner(tmp_path: Path) -> None:
    dial = tmp_path / "dial.yaml"
    dial.write_text("segments:\n  - {intruder: 2, gforce: 5}\n  - {intruder: 7, gforce: red spot}\n")
    got, problems = settings(f"games:\n  planets:\n    players: [Blue, red]\n    spinner_file: {dial}\n")
    assert problems == []
    assert got == {"players": ["blue", "red"], "spinner": [[2, 5], [7, None]]}
    g = planets.create(1, got)
    said = [o.text for o in g.start() if isinstance(o, Say)]
    assert said[1] == "Blue and Red are playing, in that order. Every ship starts on the Blast-Off area."


BAD = [
    ("    players: [red]\n", "line 3: games.planets.players needs 2 to 4 ship colors"),
    ("    players: [red, red]\n", "names a color twice"),
    ("    players: [red, mauve]\n", "may only use the ship colors red, blue, green, yellow, white, orange"),
    ("    spinner_file: /nonexistent.yaml\n", "line 3: cannot read /nonexistent.yaml"),
]


@pytest.mark.parametrize("line, problem", BAD)
def test_bad_settings_are_reported_and_defaults_kept(line: str, problem: str) -> None:
    got, problems = settings("games:\n  planets:\n" + line)
    assert len(problems) == 1 and problem in problems[0], problems
    assert got["players"] == [] or "data" in line
    assert len(got["spinner"]) == len(default_segments())


@pytest.mark.parametrize("body, problem", [
    ("segments: []\n", "needs a 'segments:' list"),
    ("segments:\n  - {intruder: 0, gforce: 2}\n", "segment 1: intruder must be a whole number from 1 to 20"),
    ("segments:\n  - {intruder: 3, gforce: purple}\n", "segment 1: gforce must be a whole number"),
    ("segments:\n  - [3, 2]\n", "segment 1 must look like {intruder: 3, gforce: 2}"),
    ("segments: [\n", "is not valid YAML"),
])
def test_a_broken_spinner_file_says_what_is_wrong(tmp_path: Path, body: str, problem: str) -> None:
    dial = tmp_path / "dial.yaml"
    dial.write_text(body)
    with pytest.raises(ValueError, match=problem.replace("{", r"\{").replace("[", r"\[")):
        planets.load_spinner(str(dial))
    got, problems = settings(f"games:\n  planets:\n    spinner_file: {dial}\n")
    assert problem in problems[0] and "using the packaged spinner" in problems[0]


def test_fixed_phrases_cover_every_spin_and_are_spoken_by_zark() -> None:
    phrases = planets.fixed_phrases({})
    texts = {p.text for p in phrases}
    assert all(p.speaker == "ZARK" for p in phrases)
    assert {s.text() for s in default_segments()} <= texts
    g = game(seed=9)
    said = play(g, ON_BOARD + ["spin"])
    assert said[-1] in texts and "Red's turn. Say spin." in texts


def test_same_seed_and_inputs_replay_the_same_game() -> None:
    script = ON_BOARD + ["spin", "landed on the intruder", "next", "spin", "next", "spin", "next", "spin"]
    r = random.Random(0).randrange(1000)
    a, b = game(seed=r), game(seed=r)
    assert play(a, script) == play(b, script)
    assert snapshot(a) == snapshot(b)
