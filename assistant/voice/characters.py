"""The characters that speak: a Piper voice, its synthesis settings and an effect chain each.

Each game declares its own characters and their defaults (its GameSpec's ``characters``);
the narrator, the plain voice, is everyone else's. All of them are editable in config.yaml
under ``characters:``, and config.yaml may add more. Any speaker name that has no character
of its own is spoken by the narrator.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assistant.config import Config
from assistant.games import characters
from assistant.voice.effects import Effect, Glitch, describe, fixed_part, glitch_of, parse_chain

#: The plain voice, for every speaker without a character of its own.
NARRATOR_DEFAULTS: dict[str, Any] = {
    "voice": "",
    "length_scale": 1.0,
    "noise_scale": 0.667,
    "noise_w_scale": 0.8,
    "volume": 1.0,
    "effects": [],
}

#: The fallback for every speaker without a character of its own.
NARRATOR = "narrator"


def default_characters() -> dict[str, Mapping[str, Any]]:
    """Every game's characters, then the narrator, with their defaults."""
    return {**characters(), NARRATOR: NARRATOR_DEFAULTS}


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
        defaults = default_characters().get(name, NARRATOR_DEFAULTS)
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
    """The games' characters and the narrator, plus any extra ones defined in config.yaml."""
    names = list(default_characters())
    extra: dict[str, Any] = config.get("characters", {})
    names.extend(str(n).lower() for n in extra if str(n).lower() not in names)
    return names


def character_for(speaker: str, known: Mapping[str, Any]) -> str:
    """The character that speaks for a game's speaker name ("VIRUS" -> "virus")."""
    name = speaker.strip().lower().replace(" ", "_")
    return name if name in known else NARRATOR
