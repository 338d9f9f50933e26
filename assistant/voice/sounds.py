"""Non-speech sounds (``Sound("buzz")``): short tones and noises made with numpy.

Recipes are data: the built-in table below, plus ``voice.sounds`` in config.yaml to change
one or add new names (``laser: {wave: saw, frequency: 1500, end_frequency: 300, seconds: 0.3}``).
An unknown name plays the ``beep`` so the table still hears that something happened.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from assistant.config import Config
from assistant.voice.effects import Audio, as_audio

WAVES = ("sine", "square", "saw", "noise")


@dataclass(frozen=True)
class SoundRecipe:
    wave: str = "sine"
    frequency: float = 880.0
    end_frequency: float = 0.0  # 0: no sweep
    seconds: float = 0.15
    pulses: int = 1
    gap: float = 0.08
    decay: bool = False
    volume: float = 0.5


BUILTIN_SOUNDS: dict[str, SoundRecipe] = {
    "beep": SoundRecipe("sine", 880, seconds=0.12),
    "buzz": SoundRecipe("square", 110, seconds=0.5, volume=0.35),
    "alarm": SoundRecipe("square", 600, 1200, seconds=0.22, pulses=3, gap=0.06, volume=0.3),
    "chime": SoundRecipe("sine", 1320, seconds=0.45, decay=True),
    "tick": SoundRecipe("sine", 1000, seconds=0.03),
    "laser": SoundRecipe("saw", 1500, 300, seconds=0.3, volume=0.3),
    "teleport": SoundRecipe("sine", 300, 1800, seconds=0.6),
    "explosion": SoundRecipe("noise", 0, seconds=0.9, decay=True, volume=0.6),
    "static": SoundRecipe("noise", 0, seconds=0.3, volume=0.25),
    "success": SoundRecipe("sine", 660, 990, seconds=0.15, pulses=2, gap=0.05),
}


def render_sound(recipe: SoundRecipe, rate: int, seed: int = 0) -> Audio:
    n = max(1, int(recipe.seconds * rate))
    t = np.arange(n) / rate
    end = recipe.end_frequency or recipe.frequency
    freq = recipe.frequency + (end - recipe.frequency) * t / recipe.seconds
    phase = 2 * np.pi * np.cumsum(freq) / rate
    if recipe.wave == "square":
        tone = np.sign(np.sin(phase))
    elif recipe.wave == "saw":
        tone = 2 * ((phase / (2 * np.pi)) % 1.0) - 1
    elif recipe.wave == "noise":
        tone = np.random.default_rng(seed).uniform(-1, 1, n)
    else:
        tone = np.sin(phase)
    envelope = np.minimum(1.0, np.minimum(t / 0.005, (recipe.seconds - t) / 0.02))
    if recipe.decay:
        envelope = envelope * np.exp(-4 * t / recipe.seconds)
    one = tone * np.clip(envelope, 0, 1) * recipe.volume
    gap = np.zeros(int(recipe.gap * rate))
    parts: list[Any] = []
    for i in range(recipe.pulses):
        parts.append(one)
        if i + 1 < recipe.pulses:
            parts.append(gap)
    return as_audio(np.concatenate(parts))


def sound_table(config: Config) -> dict[str, SoundRecipe]:
    """Built-in recipes with the user's ``voice.sounds`` changes (bad values reported, skipped)."""
    table = dict(BUILTIN_SOUNDS)
    known = {f.name: f.default for f in fields(SoundRecipe)}
    wanted: dict[str, Any] = config.value("voice.sounds")
    for name, spec in wanted.items():
        key = f"voice.sounds.{name}"
        if not isinstance(spec, dict):
            config.problems.append(f"{config.where(key)}: {key} must be a group like "
                                   "{wave: sine, frequency: 880, seconds: 0.2}; ignored.")
            continue
        recipe = table.get(str(name).lower(), SoundRecipe())
        for field_name in spec:
            if field_name not in known:
                config.problems.append(f"{config.where(f'{key}.{field_name}')}: unknown sound setting "
                                       f"{field_name!r} (known: {', '.join(known)}); ignored.")
                continue
            default = getattr(recipe, field_name)
            limits = {"seconds": (0.01, 5.0), "volume": (0.0, 1.0), "pulses": (1, 10), "gap": (0.0, 2.0),
                      "frequency": (0.0, 10000.0), "end_frequency": (0.0, 10000.0)}.get(field_name, (None, None))
            value = config.get(f"{key}.{field_name}", default, minimum=limits[0], maximum=limits[1],
                               choices=WAVES if field_name == "wave" else None)
            recipe = replace(recipe, **{field_name: value})
        table[str(name).lower()] = recipe
    return table


class SoundBoard:
    """Rendered sounds at one rate, made once."""

    def __init__(self, table: dict[str, SoundRecipe], rate: int) -> None:
        self.rate = rate
        self.table = table
        self._made: dict[str, Audio] = {}
        self._rng = random.Random(0)

    def audio(self, name: str) -> Audio:
        key = name.lower() if name.lower() in self.table else "beep"
        if key not in self._made:
            self._made[key] = render_sound(self.table.get(key, BUILTIN_SOUNDS["beep"]), self.rate,
                                           self._rng.randrange(1 << 30))
        return self._made[key]

    def known(self, name: str) -> bool:
        return name.lower() in self.table
