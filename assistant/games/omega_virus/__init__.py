"""The Omega Virus Command Center (1992), replaced: rules engine, board data, sentences."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from assistant.config import Config
from assistant.engine import Game, Say, make_rng
from assistant.games import GameSpec, Keypad
from assistant.games.omega_virus import moments, phrases, private
from assistant.games.omega_virus.board import Board, BoardError
from assistant.games.omega_virus.engine import CommandCenter, Settings
from assistant.sentences import SentenceSet

NAME = "omega-virus"


def create(seed: int, settings: Mapping[str, Any]) -> CommandCenter:
    return CommandCenter(make_rng(seed), Settings.from_mapping(settings))


def sentences() -> SentenceSet:
    return SentenceSet.load_game(__name__, undo=CommandCenter.supports_undo)


def live_settings(settings: dict[str, Any], config: Config, has_keypad: bool) -> dict[str, Any]:
    """Hands-free play: spoken answers get ``live.spoken_extra_seconds`` more time (unless
    games.omega_virus.response_extra_seconds is set), and with no private keypad the computer
    fires the attacker's shot."""
    settings = dict(settings)
    extra = config.value("live.spoken_extra_seconds")
    if not config.has("games.omega_virus.response_extra_seconds"):
        settings["response_extra_seconds"] = extra  # time for speech to be recognized
    if not has_keypad:
        settings["attack_shot"] = "random"
    return settings


def urgency(game: Game) -> float:
    """0 with the countdown full (or not running), rising to 1 as it runs out; steepest at the end."""
    if not isinstance(game, CommandCenter) or not game.countdown_running():
        return 0.0
    return countdown_urgency(game.remaining_ms, game.limit_ms)


def countdown_urgency(remaining_ms: float, limit_ms: float) -> float:
    if limit_ms <= 0:
        return 0.0
    spent = 1.0 - min(max(remaining_ms / limit_ms, 0.0), 1.0)
    return spent * spent


def board_command_code(config: Config) -> Callable[[str, str], str]:
    """The configured board's Command Code table: (color, unit) -> the two digits after 1."""
    return Board.from_data(Settings.from_mapping(settings_from_config(config)).board).command_code


def keypad(config: Config) -> Keypad:
    """What each spoken command means on the Command Center's keypad (for ``assistant transcribe``)."""
    from assistant.games.omega_virus.buttons import command_center_buttons

    code = board_command_code(config)
    return lambda command: command_center_buttons(command, code)


def settings_from_config(config: Config) -> dict[str, Any]:
    """The game's settings from config.yaml (games.omega_virus.*), each checked."""
    d = Settings()
    key = "games.omega_virus."
    s = Settings(
        time_chart=_time_chart(config, d.time_chart),
        secret_code_seconds=config.value(key + "secret_code_seconds"),
        shields_seconds=config.value(key + "shields_seconds"),
        shot_seconds=config.value(key + "shot_seconds"),
        terminate_seconds=config.value(key + "terminate_seconds"),
        response_extra_seconds=config.value(key + "response_extra_seconds"),
        attack_shot=config.value(key + "attack_shot"),
        probe_weakness=config.value(key + "probe_weakness"),
        wanted_chance=config.value(key + "wanted_chance"),
        hazard_chance=config.value(key + "hazard_chance"),
        persistence=config.value(key + "persistence"),
        teleport_trap_share=config.value(key + "teleport_trap_share"),
        shutdown_minutes=_minutes(config, key + "shutdown_minutes", d.shutdown_minutes),
        announce_minutes=_minutes(config, key + "announce_minutes", d.announce_minutes),
        probe_loss_minutes=_minutes(config, key + "probe_loss_minutes", d.probe_loss_minutes),
        probe_loss_chance=config.value(key + "probe_loss_chance"),
        taunt_chance_start=config.value(key + "taunt_chance_start"),
        taunt_chance_end=config.value(key + "taunt_chance_end"),
        must_be_terminated_chance=config.value(key + "must_be_terminated_chance"),
        board=_board(config),
    )
    if s.wanted_chance + s.hazard_chance > 1.0:
        config.problems.append(f"{config.where(key + 'hazard_chance')}: wanted_chance + hazard_chance must "
                               "be at most 1; using the defaults for both.")
        s.wanted_chance, s.hazard_chance = d.wanted_chance, d.hazard_chance
    return s.to_dict()


def _minutes(config: Config, key: str, default: list[float]) -> list[float]:
    value = config.value(key)
    try:
        return [float(v) for v in value]
    except (TypeError, ValueError):
        config.problems.append(f"{config.where(key)}: {key} must be a list of minutes; using {default}.")
        return default


def _time_chart(config: Config, default: dict[str, list[int]]) -> dict[str, list[int]]:
    key = "games.omega_virus.time_chart"
    raw: dict[str, Any] = config.value(key)
    chart = {k: list(v) for k, v in default.items()}
    for skill, minutes in raw.items():
        ok = (str(skill) in chart and isinstance(minutes, list) and len(minutes) == 4
              and all(isinstance(m, int | float) and m > 0 for m in minutes))
        if not ok:
            config.problems.append(f"{config.where(f'{key}.{skill}')}: time_chart needs skill 0, 1 or 2 "
                                   "with four minute values (1, 2, 3, 4 players); keeping the rulebook's.")
            continue
        chart[str(skill)] = [int(m) for m in minutes]
    return chart


def _board(config: Config) -> dict[str, Any]:
    key = "games.omega_virus.board"
    path = config.value(key)
    try:
        return Board.load_data(path or None)
    except BoardError as error:
        config.problems.append(f"{config.where(key)}: {error}; using the default board.")
        return Board.default_data()


def board_text(config: Config, path: str | None = None) -> str:
    if path:
        data = Board.load_data(path)
    else:
        data = Settings.from_mapping(settings_from_config(config)).board
    return Board.from_data(data).text()


def fixed_phrases(settings: Mapping[str, Any]) -> list[Say]:
    """Everything the Command Center can say: all of it is known ahead, so all of it is cached."""
    s = Settings.from_mapping(settings)
    board = Board.from_data(s.board)
    longest = max(max(v) for v in s.time_chart.values())
    seen: dict[tuple[str, str], Say] = {}
    for say in phrases.all_phrases(board.seat_order, tuple(r.code for r in board.rooms), longest):
        seen.setdefault((say.speaker, say.text), say)
    return list(seen.values())


#: The game's two voices (config.yaml's ``characters.virus`` and ``characters.bsat1`` edit them).
#: The Virus: pitch lowered five semitones with its formants kept (deep but clear), a
#: sub-octave copy layered under it and a 40 Hz ring modulator (nothing human sounds like
#: that); curt: slightly fast, flat delivery. (Saturation and echo sounded meaner but cost
#: intelligibility: PocketSphinx lost final words.) BSat1, the BattleSat 1 station computer:
#: robotized to a monotone buzz at 165 Hz, crushed to 8 bits at half the sample rate, then
#: thinned to a 350-5000 Hz band (which also takes the crush's hiss away from the words); it
#: glitches, more as time runs out (the ``glitch`` effect, applied live).
CHARACTERS: dict[str, dict[str, Any]] = {
    "virus": {
        "voice": "",
        "length_scale": 0.95,
        "noise_scale": 0.5,
        "noise_w_scale": 0.6,
        "volume": 1.0,
        "effects": [
            {"type": "pitch", "semitones": -5},
            {"type": "layer", "semitones": -12, "mix": 0.35},
            {"type": "ring", "frequency": 40, "mix": 0.25},
        ],
    },
    "bsat1": {
        "voice": "",
        "length_scale": 1.0,
        "noise_scale": 0.3,
        "noise_w_scale": 0.3,
        "volume": 1.0,
        "effects": [
            {"type": "robot", "pitch_hz": 165},
            {"type": "crush", "bits": 8, "hold": 2},
            {"type": "band", "low": 350, "high": 5000},
            {"type": "glitch", "rate": 0.1, "urgent_rate": 1.0},
        ],
    },
}

#: How the station's name is said, however it is written.
PRONOUNCE = {
    "BSat1": "B Sat one",
    "BSat 1": "B Sat one",
    "B-Sat 1": "B Sat one",
    "BSat": "B Sat",
    "BattleSat1": "Battle Sat one",
    "BattleSat": "Battle Sat",
}


def help_example(game: Game, example: str) -> str:
    """The skill is offered as the three choices it is ("skill zero" alone reads as the only
    one); bare buttons ("zero two") only when they make a whole entry now."""
    if example == "skill zero":
        return ", ".join(f"skill {level}" for level in ("zero", "one", "two"))
    if example == "zero two" and isinstance(game, CommandCenter) and not game.whole_entry(["0", "2"]):
        return ""
    return example


#: What the Command Center says with live content: the seconds left, what a player holds.
LIVE = re.compile(r"^(\d+ seconds until I take over!|(Red|Blue|Green|Yellow) has (the|nothing).*)$")


def live_content(text: str) -> bool:
    return LIVE.match(text) is not None


def time_left(game: Game) -> float | None:
    """The countdown's seconds left, once it runs (none before sign-on ends, nor after the game)."""
    if not isinstance(game, CommandCenter) or not game.countdown_running():
        return None
    return game.remaining_ms / 1000


SPEC = GameSpec(NAME, create, sentences, fixed_phrases, settings_from_config,
                query_intents=frozenset({"repeat", "time_left", "inventory"}),
                supports_undo=CommandCenter.supports_undo, live_settings=live_settings, urgency=urgency,
                keypad=keypad, live_content=live_content, help_example=help_example,
                private_request=private.private_request, private_colors=private.COLORS,
                title="The Omega Virus", spoken_names=("[the] omega virus",), characters=CHARACTERS,
                pronounce=PRONOUNCE, moment=moments.moment, scenes=moments.SCENES, time_left=time_left)

__all__ = ["NAME", "SPEC", "board_text", "create", "fixed_phrases", "sentences", "settings_from_config"]
