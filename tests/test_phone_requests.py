"""What the game asks which color to enter in private (GameSpec.private_request): the
Command Center's secret presses, phase by phase, and nothing from the games without any."""

from __future__ import annotations

import random

from assistant.engine import Command
from assistant.games import PrivateRequest, game_spec, specs
from assistant.games.omega_virus.engine import CommandCenter
from assistant.games.omega_virus.private import private_request
from assistant.games.omega_virus.state import AVDS, Phase
from tests.harness import RandomTable, state_of
from tests.ov_helpers import explore, give, press, signed_on, to_turn


def test_the_command_center_offers_its_colors_and_asks_nothing_before_sign_on() -> None:
    spec = game_spec("omega-virus")
    assert spec.private_colors == ("red", "blue", "green", "yellow")
    cc = spec.create(1, {})
    cc.start()
    assert spec.private_request(cc) is None  # "Enter skill." is said aloud


def test_sign_on_asks_each_color_for_two_presses_in_turn() -> None:
    cc = CommandCenter(random.Random(1))
    cc.start()
    press(cc, "0")
    assert private_request(cc) == PrivateRequest("red", "Red, enter secret code.", 2, 0,
                                                 "Red is entering a secret code.")
    press(cc, "1")
    request = private_request(cc)
    assert request is not None and (request.color, request.entered) == ("red", 1)
    press(cc, "2")
    request = private_request(cc)
    assert request is not None and (request.color, request.prompt, request.entered) == \
        ("blue", "Blue, enter secret code.", 0)
    press(cc, "R")  # R skips Blue
    request = private_request(cc)
    assert request is not None and request.color == "green"


def test_nothing_is_asked_in_private_while_the_mover_speaks() -> None:
    cc, _ = signed_on(4, players=("red", "blue"))
    assert cc.phase is Phase.MOVE and private_request(cc) is None
    press(cc, "2")  # the room code is said aloud
    assert cc.phase is Phase.ROOM_CODE and private_request(cc) is None


def test_an_attack_asks_the_attacker_for_the_shot_then_the_defender_for_shields() -> None:
    cc, _ = signed_on(4, players=("red", "blue"))
    to_turn(cc, "blue")
    press(cc, "100")
    assert private_request(cc) == PrivateRequest("blue", "Blue, take your best shot!", 1, 0, "Blue is taking a shot.")
    press(cc, "R")
    assert cc.defense is not None
    n = cc.defense.n
    request = private_request(cc)
    assert request is not None
    assert (request.color, request.presses, request.entered) == ("red", n, 0)
    assert request.waiting == "Red is energizing shields."
    assert request.prompt.startswith(f"Red, energize {n} shield")
    if n > 1:
        press(cc, "0")
        request = private_request(cc)
        assert request is not None and request.entered == 1


def test_the_virus_found_asks_its_finder_for_the_termination_button() -> None:
    cc, _ = signed_on(9, players=("red",))
    give(cc, "red", "red card", "blue card", "yellow card", *AVDS)
    explore(cc, cc.virus_room)
    assert cc.phase is Phase.TERMINATE
    assert private_request(cc) == PrivateRequest("red", "Red, press one termination button.", 1, 0,
                                                 "Red is trying to terminate the Virus.")
    cc.handle(Command("terminate", {"b1": cc.termination_button}))
    assert cc.is_over() and private_request(cc) is None


def test_asking_changes_nothing_and_is_always_consistent() -> None:
    """Over random games: reading the request changes no state (not even the RNG), and what it
    asks is what the phase waits for: presses still missing, from a player in the game."""
    spec = game_spec("omega-virus")
    asked = set()
    for seed in range(6):
        table = RandomTable(spec, seed)
        game = table.game
        assert isinstance(game, CommandCenter)
        for _ in table.play(300):
            before = state_of(game)
            request = spec.private_request(game)
            assert state_of(game) == before
            if request is None:
                continue
            asked.add(game.phase)
            assert request.color in spec.private_colors
            assert 0 <= request.entered < request.presses <= 3
            assert request.prompt.startswith(request.color.title())
            assert request.waiting.startswith(request.color.title()) and request.waiting != request.prompt
    assert {Phase.SIGNON, Phase.SHIELDS} <= asked


def test_games_without_private_presses_ask_none_and_take_no_phones() -> None:
    rng = random.Random(1)
    for spec in specs():
        if spec.name == "omega-virus":
            continue
        assert spec.private_colors == ()
        game = spec.create(rng.randrange(1000), {})
        game.start()
        assert spec.private_request(game) is None
