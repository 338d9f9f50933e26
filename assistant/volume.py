"""The speaker's volume, 0 to 10, kept in the state folder so it survives a restart.

Level 10 plays the voices as they are rendered; each step down is 3 dB quieter (level 5 is
about a fifth of the amplitude) and 0 is silent. Samples are scaled on their way to the
speaker, so the level is the same for every voice, sound and output device.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

LOUDEST = 10
#: The file in the state folder that keeps the level.
VOLUME_FILE = "volume.json"
#: How much quieter each step below LOUDEST is.
STEP_DB = 3.0


def gain(level: int) -> float:
    """The factor samples are scaled by at ``level`` (0 to LOUDEST)."""
    if level <= 0:
        return 0.0
    return float(10 ** (-(LOUDEST - min(level, LOUDEST)) * STEP_DB / 20))


@dataclass
class Volume:
    """The level and where it is kept (``path`` None: not kept, as in tests of other things)."""

    level: int = LOUDEST
    path: Path | None = None
    #: Why the level could not be read or kept ("" when all is well).
    problem: str = ""

    @classmethod
    def load(cls, folder: Path | None, default: int = LOUDEST) -> Volume:
        """The level kept in ``folder``; ``default`` when none is kept yet, or the file is unusable
        (``problem`` says why)."""
        if folder is None:
            return cls(default)
        path = folder / VOLUME_FILE
        try:
            level = json.loads(path.read_text(encoding="utf-8"))["volume"]
        except FileNotFoundError:
            return cls(default, path)
        except (OSError, ValueError, KeyError, TypeError) as error:
            return cls(default, path, f"{path} cannot be read ({error}); using volume {default}")
        if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= LOUDEST:
            return cls(default, path, f"{path} holds {level!r}, not a volume from 0 to {LOUDEST}; "
                                      f"using volume {default}")
        return cls(level, path)

    @property
    def gain(self) -> float:
        return gain(self.level)

    def set(self, level: int) -> bool:
        """Take ``level`` (0 to LOUDEST) and keep it; False when it could not be written (it is used
        anyway, until the next start; ``problem`` says why)."""
        if not 0 <= level <= LOUDEST:
            raise ValueError(f"volume {level} is not from 0 to {LOUDEST}")
        self.level = level
        if self.path is None:
            return True
        partial = self.path.with_name(f".{self.path.name}.partial")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps({"volume": level}) + "\n", encoding="utf-8")
            os.replace(partial, self.path)
        except OSError as error:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
            self.problem = f"the volume cannot be kept in {self.path} ({error.strerror or error})"
            return False
        self.problem = ""
        return True
