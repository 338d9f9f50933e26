"""The characters that speak: a Piper voice, its synthesis settings and an effect chain each.

Defaults (all editable in config.yaml under ``characters:``):

- ``virus``: the Omega Virus. Pitch lowered five semitones with its formants kept (deep but
  clear), a sub-octave copy layered under it and a 40 Hz ring modulator (nothing human
  sounds like that). Curt: slightly fast, flat delivery. (Saturation and echo sounded
  meaner but cost intelligibility: PocketSphinx lost final words; add them in config.yaml
  if your table likes them.)
- ``bsat1``: the BattleSat 1 station computer. Robotized to a monotone buzz at 165 Hz,
  crushed to 8 bits at half the sample rate, then thinned to a 350-5000 Hz band (which
  also takes the crush's hiss away from the words); it glitches, more as time runs out
  (the ``glitch`` effect, applied live).
- ``narrator``: the plain voice, for the other games.

Any speaker name that has no character of its own is spoken by the narrator.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assistant.config import Config
from assistant.voice.effects import Effect, Glitch, describe, fixed_part, glitch_of, parse_chain

DEFAULT_CHARACTERS: dict[str, dict[str, Any]] = {
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
    "narrator": {
        "voice": "",
        "length_scale": 1.0,
        "noise_scale": 0.667,
        "noise_w_scale": 0.8,
        "volume": 1.0,
        "effects": [],
    },
}

#: The game speakers of the Omega Virus, and the fallback for every other speaker.
NARRATOR = "narrator"


@dataclass(frozen=True)
class CharacterSpec:
    """One character, as configured."""

    name: str
    voice: str
    length_scale: float
    noise_scale: float
    noise_w_scale: float
    volume: float
    speaker_id: int
    effects: tuple[Effect, ...]

    @property
    def cached_effects(self) -> tuple[Effect, ...]:
        return fixed_part(self.effects)

    @property
    def glitch(self) -> Glitch | None:
        return glitch_of(self.effects)

    def fingerprint(self, voice_id: str) -> str:
        """What the cached audio depends on (the live glitch is not part of it)."""
        data = {
            "voice": voice_id,
            "synthesis": [self.length_scale, self.noise_scale, self.noise_w_scale, self.speaker_id],
            "volume": self.volume,
            "effects": describe(self.cached_effects),
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:24]

    @classmethod
    def from_config(cls, config: Config, name: str) -> CharacterSpec:
        """Read ``characters.<name>``; bad values are reported in ``config.problems``."""
        defaults = DEFAULT_CHARACTERS.get(name, DEFAULT_CHARACTERS[NARRATOR])
        base = f"characters.{name}"
        effects_data = config.value(f"{base}.effects", list(defaults["effects"]))
        effects, problems = parse_chain(effects_data)
        for index, problem in problems:
            where = config.where(f"{base}.effects[{index}].type")
            config.problems.append(f"{where}: {base}.effects item {index + 1}: {problem}.")
        return cls(
            name=name,
            voice=config.value(f"{base}.voice", str(defaults["voice"])),
            length_scale=config.value(f"{base}.length_scale", float(defaults["length_scale"])),
            noise_scale=config.value(f"{base}.noise_scale", float(defaults["noise_scale"])),
            noise_w_scale=config.value(f"{base}.noise_w_scale", float(defaults["noise_w_scale"])),
            volume=config.value(f"{base}.volume", float(defaults["volume"])),
            speaker_id=config.value(f"{base}.speaker_id"),
            effects=effects,
        )


def character_names(config: Config) -> list[str]:
    """The default characters plus any extra ones defined in config.yaml."""
    names = list(DEFAULT_CHARACTERS)
    extra: dict[str, Any] = config.get("characters", {})
    names.extend(str(n).lower() for n in extra if str(n).lower() not in names)
    return names


def character_for(speaker: str, known: Mapping[str, Any]) -> str:
    """The character that speaks for a game's speaker name ("VIRUS" -> "virus")."""
    name = speaker.strip().lower().replace(" ", "_")
    return name if name in known else NARRATOR
