"""Declared settings: each key of ``config.yaml`` written once, with its default, range and doc.

A part of the assistant (a hearing stage, the keypad, the phone server) declares the settings it
owns as ``Setting`` values; the config schema gathers every declaration, so defaults live in one
place and ``config.yaml``, ``doctor`` and docs can be checked against them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One key: its dotted path ("hearing.whisper.beam_size"), default, limits and one line of doc."""

    key: str
    default: T
    doc: str
    choices: Sequence[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: a setting a player might change (shown in the short settings table); the rest are for tuning
    player: bool = False
