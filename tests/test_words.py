"""The shared words every game says: counts, times, and a or an before a name."""

from __future__ import annotations

import pytest

from assistant.engine import Say
from assistant.games.omega_virus import phrases as P
from assistant.games.words import minutes_seconds, plural, with_a


def test_counts_and_times() -> None:
    assert plural(1, "point") == "1 point" and plural(0, "point") == "0 points"
    assert minutes_seconds(3, 12) == "3 minutes 12 seconds"
    assert minutes_seconds(1, 0) == "1 minute" and minutes_seconds(0, 0) == "0 seconds"


@pytest.mark.parametrize("name,said", [
    ("Negatron", "a Negatron"), ("Disruptor", "a Disruptor"), ("Yellow Access Card", "a Yellow Access Card"),
    ("Access Card", "an Access Card"), ("Energizer", "an Energizer"), ("Orb", "an Orb"),
    ("Idol", "an Idol"), ("Umbrella", "an Umbrella"),
    # the first sound, not the first letter, decides
    ("Unit", "a Unit"), ("Euro", "a Euro"), ("One-way Door", "a One-way Door"), ("Hour", "an Hour"),
    ("Hazard", "a Hazard"),
])
def test_a_or_an_by_the_first_sound(name: str, said: str) -> None:
    assert with_a(name) == said


def test_the_command_center_names_what_is_stolen_with_its_article() -> None:
    assert P.with_article("negatron") == "a Negatron"
    assert P.with_article("blue card") == "a Blue Access Card"
    assert P.steals("red", "decoder") == Say(P.BSAT1, "Red steals a Decoder!")
