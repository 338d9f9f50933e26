"""Seeded random games (RANDOM_GAMES, tests/harness.py): every input a player could give,
invariants after every step."""

from __future__ import annotations

import random

from assistant.engine import Command, NotAllowed, Say, Sound
from assistant.games.omega_virus.engine import AVDS, CARDS, SUPPLY, CommandCenter, Phase, Settings
from tests.harness import RANDOM_GAMES

ALL_AVDS = set(AVDS)
ALL_CARDS = {"green card", *CARDS}

BUTTONS = ("0", "1", "2", "R")
COLORS = ("red", "blue", "green", "yellow")
SPOKEN = [
    Command("pass"), Command("teleport"), Command("repeat"), Command("time_left"), Command("inventory"),
    Command("skip"), Command("skill", {"level": "1"}), Command("code", {"d1": "0", "d2": "2"}),
    Command("terminate", {"b1": "R"}), Command("shields", {"b1": "0", "b2": "2"}),
    Command("buttons", {"b1": "2"}), Command("buttons", {"b1": "1", "b2": "0"}),
    *[Command("attack", {"target": c, "unit": u}) for c in COLORS for u in ("commando", "probe")],
    *[Command("explore", {"d1": a, "d2": b, "d3": c}) for a in "012" for b in "012" for c in "012"],
]


def check_invariants(cc: CommandCenter) -> None:
    held: dict[str, int] = dict.fromkeys(SUPPLY, 0)
    for player in cc.players.values():
        for item in player.cards | player.avds:
            if item != "green card":
                held[item] += 1
        if player.playing:
            assert "green card" in player.cards
        assert player.cards <= ALL_CARDS and player.avds <= ALL_AVDS
    for item, total in SUPPLY.items():
        assert cc.supply[item] + held[item] == total, item  # nothing created or lost
        assert cc.supply[item] >= 0
    assert 0 <= cc.used_ms <= max(cc.limit_ms, 0)
    phase = cc.phase
    if phase is Phase.SHIELDS:
        assert cc.defense is not None and 1 <= cc.defense.n <= 3
        assert len(set(cc.defense.pressed)) == len(cc.defense.pressed) < cc.defense.n
    elif phase is not Phase.SKILL and phase is not Phase.SIGNON and phase is not Phase.OVER:
        assert cc.mover is not None and cc.players[cc.mover[0]].playing
        if cc.mover[1] == "probe" and phase is Phase.MOVE:
            assert cc.players[cc.mover[0]].probe
    if cc.winner is not None:
        assert phase is Phase.OVER
        assert cc.players[cc.winner].avds == ALL_AVDS
    assert len(cc.shut) <= 3
    if cc.shut:
        assert cc.board.room(cc.virus_room).sector not in cc.shut  # type: ignore[union-attr]


def smart_input(cc: CommandCenter, rng: random.Random) -> Command:
    """What a player who knows what they need would say (so the win path is exercised too)."""
    if cc.phase is not Phase.MOVE or cc.mover is None:
        return Command("press", {"buttons": rng.choice(BUTTONS)})
    player = cc.players[cc.mover[0]]
    if player.avds == ALL_AVDS and f"{cc.board.room(cc.virus_room).color} card" in player.cards:  # type: ignore
        room = cc.virus_room
    else:
        rooms = [r.code for r in cc.board.rooms if f"{r.color} card" in player.cards and r.sector not in cc.shut]
        room = rng.choice(rooms)
    return Command("explore", dict(zip(("d1", "d2", "d3"), room, strict=True)))


def play_random_game(seed: int) -> CommandCenter:
    rng = random.Random(seed)
    settings = Settings(attack_shot=rng.choice(["keypad", "random"]),
                        wanted_chance=rng.uniform(0.3, 0.9), hazard_chance=0.1)
    cc = CommandCenter(random.Random(seed), settings)
    outputs = cc.start()
    for _ in range(5000):
        roll = rng.random()
        try:
            if roll < 0.35:
                outputs = cc.handle(Command("press", {"buttons": rng.choice(BUTTONS)}))
            elif roll < 0.6:
                outputs = cc.handle(smart_input(cc, rng))
            elif roll < 0.8:
                outputs = cc.handle(rng.choice(SPOKEN))
            else:
                outputs = cc.advance(rng.uniform(0, 90))
        except NotAllowed as reason:
            assert str(reason)
            outputs = []
        assert all(isinstance(o, Say | Sound) for o in outputs)
        check_invariants(cc)
        if cc.is_over():
            return cc
        if cc.phase is Phase.SKILL and cc.clock_ms > 3600_000:
            cc.handle(Command("press", {"buttons": "0"}))
    raise AssertionError(f"seed {seed}: the game did not end")


def test_random_games_keep_every_invariant_and_end() -> None:
    """RANDOM_GAMES seeded games (tests/harness.py): 2,000 here, of which 368 are won."""
    endings = {"won": 0, "time": 0}
    for seed in range(RANDOM_GAMES):
        cc = play_random_game(seed)
        endings["won" if cc.winner else "time"] += 1
    assert endings["won"] > 0 and endings["time"] > 0


def test_everything_said_is_prerendered_but_live_content() -> None:
    """The voice cache holds every fixed phrase the game says (fixed_phrases); only answers
    with live content (what a player holds, seconds left) are synthesized in play."""
    import re

    from assistant.config import Config
    from assistant.games import omega_virus

    settings = omega_virus.settings_from_config(Config())
    fixed = {p.text for p in omega_virus.fixed_phrases(settings)}
    live = re.compile(r"^(\d+ seconds until I take over!|(Red|Blue|Green|Yellow) has (the|nothing).*)$")
    said = missing = 0
    for seed in range(40):
        rng = random.Random(seed)
        cc = omega_virus.create(seed, settings)
        outs = cc.start()
        for _ in range(400):
            for o in outs:
                if isinstance(o, Say):
                    said += 1
                    if o.text not in fixed:
                        missing += 1
                        assert live.match(o.text), f"not among the fixed phrases: {o.text!r}"
            if cc.is_over():
                break
            roll = rng.random()
            try:
                if roll < 0.3:
                    outs = cc.advance(rng.uniform(0.5, 30))
                else:
                    outs = cc.handle(rng.choice(SPOKEN) if roll < 0.6 else smart_input(cc, rng))
            except NotAllowed:
                outs = []
    assert said > 5000 and missing < said / 100
