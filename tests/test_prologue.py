"""Omega Virus: Prologue: rule tests, table by table, driven through the real sentence matcher."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest

from assistant.config import Config
from assistant.engine import Command, NotAllowed, Say
from assistant.games import prologue
from assistant.games.prologue.engine import Phase, PrologueGame, duration

SENTENCES = prologue.sentences()


def game(**settings: Any) -> PrologueGame:
    g = prologue.create(1, settings)
    g.start()
    return g


def command(text: str) -> Command:
    found = SENTENCES.match_all(text)
    assert found, f"not understood: {text!r}"
    return found[0]


def play(g: PrologueGame, script: Sequence[str | float]) -> list[str]:
    """Feed words (str) and seconds of game time (float); return what the narrator said."""
    said: list[str] = []
    for step in script:
        outputs = g.advance(step) if isinstance(step, float) else g.handle(command(step))
        said += [o.text for o in outputs if isinstance(o, Say)]
    return said


def snapshot(g: PrologueGame) -> Any:
    state = {k: copy.deepcopy(v) for k, v in vars(g).items() if k != "rng"}
    return state, g.rng.getstate()


NAMED: list[str | float] = ["player one is anna", "player two is ben"]
TO_SCORING: list[str | float] = NAMED + ["ready", 5.0, 42.0, "anna is done"]


# --------------------------------------------------------------------------- sentences


def test_player_names_collide_with_no_other_word() -> None:
    names = {v.out for v in SENTENCES.lists["name"]}
    others = SENTENCES.vocabulary(set(SENTENCES.intents) - {"name", "done", "who"})
    assert not names & others
    assert len(names) >= 80


# --------------------------------------------------------------------------- rounds


def test_start_reminds_the_setup_and_waits_for_ready() -> None:
    g = prologue.create(1, {})
    said = [o.text for o in g.start() if isinstance(o, Say)]
    assert "Shuffle the scoring cards and reveal the top three." in said
    assert said[-1] == "Say ready when both players are ready."
    assert g.allowed_intents() == {"ready", "name", "status", "repeat"}
    assert g.next_event_in() is None


def test_configured_names_skip_the_name_hint() -> None:
    g = prologue.create(1, {"players": ["Anna", "Ben"]})
    said = [o.text for o in g.start() if isinstance(o, Say)]
    assert prologue.engine.NAME_HINT not in said
    assert g.names == ["Anna", "Ben"]


def test_countdown_is_one_second_apart_then_go() -> None:
    g = game()
    assert play(g, ["ready"]) == ["Round 1.", "5"]
    assert g.clock_running()
    assert g.next_event_in() == 1.0
    assert play(g, [0.999]) == []
    assert play(g, [0.001]) == ["4"]
    assert play(g, [3.0]) == ["3", "2", "1"]
    assert g.phase is Phase.COUNTDOWN
    assert play(g, [1.0]) == ["GO!"]
    assert g.phase is Phase.RUNNING
    assert not g.clock_running()  # a silent round must not trip the session's idle pause


@pytest.mark.parametrize("chops", [[9.5], [1.0] * 9 + [0.5], [0.25] * 38, [4.999, 0.001, 4.5], [0.3, 9.2]])
def test_time_gives_the_same_result_however_it_is_chopped(chops: list[float]) -> None:
    whole = game(time_calls_seconds=2)
    expected = play(whole, ["ready", 9.5])
    chopped = game(time_calls_seconds=2)
    assert play(chopped, ["ready", *chops]) == expected
    assert expected == ["Round 1.", "5", "4", "3", "2", "1", "GO!", "2 seconds.", "4 seconds."]
    assert snapshot(chopped) == snapshot(whole)


def test_elapsed_time_calls_every_configured_interval() -> None:
    g = game(time_calls_seconds=90)
    assert play(g, ["ready", 5.0]) == ["Round 1.", "5", "4", "3", "2", "1", "GO!"]
    assert g.next_event_in() == 90.0
    assert play(g, [200.0]) == ["1 minute 30 seconds.", "3 minutes."]
    assert g.next_event_in() == 70.0


def test_no_time_calls_by_default() -> None:
    g = game()
    play(g, ["ready", 5.0])
    assert g.next_event_in() is None
    assert play(g, [600.0]) == []
    assert play(g, ["how long"]) == ["Round 1: 10 minutes."]


@pytest.mark.parametrize("ms, text", [
    (0, "0 seconds"), (1_000, "1 second"), (45_999, "45 seconds"), (60_000, "1 minute"),
    (61_000, "1 minute 1 second"), (192_000, "3 minutes 12 seconds"), (3_600_000, "60 minutes"),
])
def test_duration_words(ms: int, text: str) -> None:
    assert duration(ms) == text


@pytest.mark.parametrize("done", ["anna is done", "done anna", "player one finished", "done player 1"])
def test_done_with_a_name_ends_the_round_and_gives_the_speed_bonus(done: str) -> None:
    g = game()
    said = play(g, NAMED + ["ready", 5.0, 192.4, done])
    assert said[-3:] == ["Anna is done! Round 1 took 3 minutes 12 seconds.",
                         "Anna takes the speed bonus card: 1 point.",
                         "Scoring card 1 of 3: who achieved it? Say Anna, Ben, tie, or nobody."]
    assert g.scores() == [1, 0]
    assert g.phase is Phase.SCORING


def test_done_without_a_name_stops_the_clock_and_asks() -> None:
    g = game()
    said = play(g, [*NAMED, "ready", 5.0, 30.0, "done"])
    assert said[-2:] == ["Stop! Who is done?", "Say Anna or Ben, or keep going."]
    assert g.phase is Phase.WHO_DONE
    play(g, [20.0])  # the table argues; the round time does not grow
    with pytest.raises(NotAllowed, match="Someone said done"):
        g.handle(command("tie"))
    assert play(g, ["ben"])[0] == "Ben is done! Round 1 took 30 seconds."
    assert g.scores() == [0, 1]


def test_a_done_nobody_meant_lets_the_round_go_on_with_its_time() -> None:
    g = game(time_calls_seconds=60)
    play(g, NAMED + ["ready", 5.0, 50.0, "done", 4.0])
    assert play(g, ["keep going"]) == ["Keep going! Round 1: 54 seconds."]
    assert g.phase is Phase.RUNNING
    assert play(g, [6.0]) == ["1 minute."]
    assert play(g, ["anna is done"])[0] == "Anna is done! Round 1 took 1 minute."


@pytest.mark.parametrize("rnd, bonus", [(1, 1), (2, 2), (3, 3)])
def test_speed_bonus_is_one_two_three_by_round_by_default(rnd: int, bonus: int) -> None:
    g = game()
    play(g, NAMED)
    for _ in range(rnd - 1):
        play(g, ["ready", 6.0, "done ben", "nobody", "nobody", "nobody"])
    said = play(g, ["ready", 6.0, "done anna"])
    assert said[-2] == f"Anna takes the speed bonus card: {bonus} point{'s' if bonus > 1 else ''}."
    assert g.scores()[0] == bonus


def test_speed_bonus_values_are_configurable() -> None:
    g = game(speed_bonus=[5, 0, 7])
    play(g, ["ready", 6.0, "done player two"])
    assert g.scores() == [0, 5]


# --------------------------------------------------------------------------- scoring cards

SCORING_TABLE = [
    # answers to the three scoring cards, then what the scores must be (speed bonus: Anna, 1)
    (["anna", "3", "ben", "two", "nobody"], [4, 2]),
    (["tie", "4", "ben for 2 points", "anna got it", "1"], [6, 2]),          # a tie goes to Anna
    (["nobody", "no one", "neither"], [1, 0]),
    (["it's a tie for 2 points", "player two for 5 points", "player 2", "0"], [3, 5]),
]


@pytest.mark.parametrize("answers, scores", SCORING_TABLE)
def test_scoring_cards_asked_one_by_one(answers: list[str], scores: list[int]) -> None:
    g = game()
    play(g, [*TO_SCORING, *answers])
    assert g.scores() == scores
    assert g.round == 2 and g.phase is Phase.SETUP


def test_points_are_asked_only_when_not_configured() -> None:
    asking = game()
    play(asking, TO_SCORING)
    assert play(asking, ["ben"]) == ["How many points is scoring card 1 worth?"]
    assert asking.allowed_intents() == {"points", "status", "repeat"}
    configured = game(scoring_card_points=2)
    play(configured, TO_SCORING)
    said = play(configured, ["ben"])
    assert said == ["Ben: scoring card 1, 2 points.",
                    "Scoring card 2 of 3: who achieved it? Say Anna, Ben, tie, or nobody."]
    assert play(configured, ["anna for 6 points"])[0] == "Anna: scoring card 2, 6 points."


def test_a_tie_goes_to_the_speed_bonus_winner() -> None:
    g = game(scoring_card_points=3)
    said = play(g, NAMED + ["ready", 5.0, 10.0, "ben is done", "tie"])
    assert said[-2] == "A tie goes to Ben, who took the speed bonus: scoring card 1, 3 points."
    assert g.scores() == [0, 4]


def test_round_totals_then_next_round_reminders() -> None:
    g = game(scoring_card_points=1)
    said = play(g, TO_SCORING + ["anna", "ben", "anna"])
    assert said[-6:] == ["After round 1: Anna 3, Ben 1.",
                         "Return all key cards to their piles.",
                         "Put the location cards in the box and reveal three new ones.",
                         "Reveal three new scoring cards.",
                         "Both players gather their floor plan cards and shuffle them into new decks.",
                         "Say ready when both players are ready."]


def test_each_round_is_named_once_when_it_starts() -> None:
    """"Round 2." is said once, when "ready" starts its countdown (as round 1 is), not also
    after the scores of round 1."""
    g = game(scoring_card_points=1)
    said = play(g, TO_SCORING + ["anna", "ben", "anna", "ready"])
    assert said.count("Round 1.") == 1 and said.count("Round 2.") == 1
    assert said[-2:] == ["Round 2.", "5"]


def test_whole_game_winner_after_round_three() -> None:
    g = game(scoring_card_points=2)
    said = play(g, NAMED + ["ready", 5.0, 100.0, "done anna", "anna", "anna", "tie",
                            "ready", 5.0, 100.0, "done ben", "ben", "nobody", "anna",
                            "ready", 5.0, 100.0, "done ben", "tie", "ben", "ben"])
    assert said[-3:] == ["After round 3: Anna 9, Ben 13.", "Final scores: Anna 9, Ben 13.",
                         "Ben wins the game!"]
    assert g.is_over() and g.winner() == 1
    assert g.allowed_intents() == {"status", "repeat"}


def test_a_drawn_game_is_called_a_tie() -> None:
    g = game(scoring_card_points=1)
    said = play(g, NAMED + ["ready", 5.0, 1.0, "done anna", "ben", "nobody", "nobody",
                            "ready", 5.0, 1.0, "done ben", "anna", "nobody", "nobody",
                            "ready", 5.0, 1.0, "done anna", "ben", "ben", "nobody"])
    assert said[-1] == "A tie: Anna and Ben both have 5 points. The rules give no tie-break."
    assert g.is_over() and g.winner() is None


# --------------------------------------------------------------------------- not allowed

NOT_ALLOWED = [
    ([], "done", "No round is running. Say ready to start round 1."),
    ([], "anna", "No card is being scored now."),
    ([], "how long", "No round is running"),
    (["ready"], "done", "Wait for GO!"),
    (["ready", 2.0], "ready", "Wait for GO!"),
    (["ready", 5.0], "ready", "A round is already under way."),
    (["ready", 5.0], "player one is anna", "Names can be given between rounds."),
    (["ready", 5.0], "done sam", "Nobody here is called Sam. The players are Player 1 and Player 2."),
    (NAMED + ["ready", 5.0], "done sam", "Nobody here is called Sam. The players are Anna and Ben."),
    (NAMED, "player two is anna", "Anna is already the other player's name."),
    (TO_SCORING, "three", "First tell me who achieved scoring card 1."),
    (TO_SCORING, "ready", "We are scoring round 1. Scoring card 1 of 3"),
    (TO_SCORING, "nobody for 3 points", "Nobody takes the card, so it gives no points."),
    (TO_SCORING + ["anna"], "ben", "How many points is scoring card 1 worth? Say a number."),
    (TO_SCORING + ["anna"], "done", "We are scoring round 1. How many points is scoring card 1 worth?"),
    (NAMED + ["ready", 6.0, "done"], "how long", "The round is stopped. Who is done? Say Anna or Ben"),
    (NAMED + ["ready", 6.0], "keep going", "Nobody has said done."),
]


@pytest.mark.parametrize("before, text, reason", NOT_ALLOWED)
def test_not_allowed_says_why_and_changes_nothing(before: list[str | float], text: str, reason: str) -> None:
    g = game()
    play(g, before)
    state = snapshot(g)
    with pytest.raises(NotAllowed) as error:
        g.handle(command(text))
    assert str(error.value).startswith(reason)
    assert snapshot(g) == state


def test_game_over_allows_only_status_and_repeat() -> None:
    g = game(scoring_card_points=0)
    play(g, ["ready", 6.0, "done player 1", "nobody", "nobody", "nobody"] * 3)
    assert g.is_over()
    with pytest.raises(NotAllowed, match="The game is over. Say new game"):
        g.handle(command("ready"))
    assert play(g, ["score"]) == ["The game is over.", "Scores: Player 1 6, Player 2 0."]


# --------------------------------------------------------------------------- repeat and status

REPEAT = [
    ([], "Say ready when both players are ready."),
    (["ready", 2.5], "Round 1 starts in 3."),
    (["ready", 5.0, 75.0], "Round 1 is on: 1 minute 15 seconds. Say done when someone has all three "
                           "pieces of equipment."),
    (["ready", 5.0, "done"], "Say Player 1 or Player 2, or keep going."),
    (TO_SCORING, "Scoring card 1 of 3: who achieved it? Say Anna, Ben, tie, or nobody."),
    (TO_SCORING + ["ben"], "How many points is scoring card 1 worth?"),
]


@pytest.mark.parametrize("before, last", REPEAT)
def test_repeat_tells_where_the_game_stands(before: list[str | float], last: str) -> None:
    g = game()
    play(g, before)
    state = snapshot(g)
    assert play(g, ["repeat"])[-1] == last
    assert snapshot(g) == state


def test_status_reads_round_and_scores() -> None:
    g = game()
    play(g, TO_SCORING + ["anna", "2"])
    assert play(g, ["what's the score"]) == ["Round 1, scoring card 2 of 3.", "Scores: Anna 3, Ben 0."]


def test_same_seed_and_inputs_replay_the_same_game() -> None:
    script = TO_SCORING + ["anna", "3", "tie", "1", "nobody", "ready", 7.25]
    a, b = game(time_calls_seconds=1), game(time_calls_seconds=1)
    assert play(a, script) == play(b, script)
    assert snapshot(a) == snapshot(b)


# --------------------------------------------------------------------------- settings


def settings(text: str) -> tuple[dict[str, Any], list[str]]:
    config = Config.from_text(text)
    return prologue.settings_from_config(config), config.problems


def test_default_settings_come_from_the_packaged_card_data() -> None:
    got, problems = settings("")
    assert got == {"players": [], "speed_bonus": [1, 2, 3], "scoring_card_points": None,
                   "time_calls_seconds": 0}
    assert problems == []


def test_config_overrides_card_data() -> None:
    got, problems = settings("games:\n  prologue:\n    speed_bonus: [2, 4, 6]\n    scoring_card_points: 3\n"
                             "    time_calls_seconds: 60\n    players: [anna, Ben]\n")
    assert got == {"players": ["Anna", "Ben"], "speed_bonus": [2, 4, 6], "scoring_card_points": 3,
                   "time_calls_seconds": 60}
    assert problems == []


BAD_CONFIG = [
    ("    speed_bonus: [1, 2]\n", "line 3: games.prologue.speed_bonus must be a list of 3 whole numbers",
     {"speed_bonus": [1, 2, 3]}),
    ("    scoring_card_points: lots\n", "line 3: games.prologue.scoring_card_points must be ask or",
     {"scoring_card_points": None}),
    ("    time_calls_seconds: -5\n", "line 3: games.prologue.time_calls_seconds = -5 must be at least 0",
     {"time_calls_seconds": 0}),
    ("    players: [Zyxwv, Ben]\n", "Zyxwv is not in the spoken name list, so say 'player 1'",
     {"players": ["Zyxwv", "Ben"]}),
    ("    players: [Ben, ben]\n", "Ben appears twice", {"players": ["Ben"]}),
    ("    cards_file: /nonexistent/cards.yaml\n", "line 3: cannot read /nonexistent/cards.yaml",
     {"speed_bonus": [1, 2, 3]}),
]


@pytest.mark.parametrize("line, problem, expected", BAD_CONFIG)
def test_a_bad_setting_is_reported_with_its_line_and_keeps_a_default(
        line: str, problem: str, expected: dict[str, Any]) -> None:
    got, problems = settings("games:\n  prologue:\n" + line)
    assert len(problems) == 1 and problem in problems[0], problems
    for key, value in expected.items():
        assert got[key] == value


def test_a_copied_card_data_file_is_used(tmp_path: Any) -> None:
    data = tmp_path / "my-cards.yaml"
    data.write_text("speed_bonus:\n  values: [3, 3, 3]\nscoring_cards:\n  points: 2\n")
    got, problems = settings(f"games:\n  prologue:\n    cards_file: {data}\n")
    assert problems == []
    assert got["speed_bonus"] == [3, 3, 3] and got["scoring_card_points"] == 2
    broken = tmp_path / "broken.yaml"
    broken.write_text("speed_bonus:\n  values: [one, two, three]\n")
    got, problems = settings(f"games:\n  prologue:\n    cards_file: {broken}\n")
    assert got["speed_bonus"] == [1, 2, 3]
    assert "must be a list of 3 whole numbers" in problems[0]


def test_packaged_card_data_labels_its_sources() -> None:
    data = prologue.load_data()
    assert "Reviews" in data["speed_bonus"]["source"]
    assert data["scoring_cards"]["points"] == "ask"
    assert "Unknown" in data["scoring_cards"]["source"]


def test_fixed_phrases_are_what_the_engine_says() -> None:
    phrases = {p.text for p in prologue.fixed_phrases({"time_calls_seconds": 30})}
    g = game(time_calls_seconds=30)
    said = play(g, ["ready", 5.0, 95.0, "done"])
    assert set(said[:-1]) <= phrases  # everything but the names-bearing "Say Player 1 or Player 2, ..."
    assert all(p.speaker == "NARRATOR" for p in prologue.fixed_phrases({}))
