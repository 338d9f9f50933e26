"""Declared settings: each key of ``config.yaml`` written once, with its default, range and doc.

A part of the assistant (a hearing stage, the keypad, the phone server, a game) declares the
settings it owns as ``Setting`` values in a ``SETTINGS`` tuple; :func:`declared` gathers every
declaration, so defaults live in one place, every value is checked in one place
(:meth:`Setting.check`), and ``config.yaml``, ``doctor`` and the docs can be checked against them.

Where a part declares its keys: a module listed in ``DECLARED_IN`` below, or, for a game, a
``settings`` module in the game's package (``assistant/games/<game>/settings.py``: found there,
so a new game adds no line outside its package). A key segment ``*`` stands for any name (``characters.*.volume``).
"""

from __future__ import annotations

import copy
import difflib
import functools
import importlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import Field, dataclass, field, fields
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")
D = TypeVar("D")

#: The modules that declare settings (each has ``SETTINGS``); games add ``<package>.settings``.
DECLARED_IN = (
    "assistant.config",
    "assistant.hearing.settings",
    "assistant.live.settings",
    "assistant.voice.settings",
    "assistant.phone.settings",
)


class ConfigError(ValueError):
    """A setting that cannot be used; the message says what it must be."""


class LeftOut(ConfigError):
    """Some entries of a list cannot be used: they are left out, and ``kept`` is used."""

    def __init__(self, message: str, kept: Any) -> None:
        super().__init__(message)
        self.kept = kept


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
    #: a file or folder: text only (``state_dir: 42`` is refused, not made a folder ``42/``)
    path: bool = False
    #: a group whose own keys are free (``voice.pronounce``, ``keypad.keys``): nothing under it is
    #: reported as unknown; the part that reads it checks its entries
    group: bool = False
    #: what the value may be beyond one type (a list of sources, "auto" or a number): takes the
    #: value as written and returns it checked, or raises ConfigError saying what it must be
    check: Callable[[Any], Any] | None = None

    def checked(self, value: Any, default: Any = None) -> Any:
        """``value`` as written in config.yaml, checked; raises ConfigError with what it must be.
        ``default``: the type to hold it to when the declaration's own is per name (None)."""
        if self.check is not None:
            return self.check(value)
        like = self.default if self.default is not None else default
        if self.path and not isinstance(value, str):
            raise ConfigError("must be text: a path to a folder or file")
        value = coerce(value, like)
        if self.choices is not None and value not in self.choices:
            raise ConfigError(f"must be one of {', '.join(map(str, self.choices))}")
        within(value, self.minimum, self.maximum)
        return value


#: A dataclass field's metadata entry naming the setting it is (:func:`declared_field`)
KEY = "setting"


def declared_field(setting: Setting[Any]) -> Any:
    """A dataclass field that is ``setting``: its default the declared one (a fresh copy of a list
    or a group), its key in the field's metadata, so that :func:`read_declared` reads it from
    config.yaml and :func:`carried` hands it on, and the field's own line names the key once."""
    metadata = {KEY: setting.key}
    value = setting.default
    if isinstance(value, list | dict | set):
        return field(default_factory=lambda: copy.deepcopy(value), metadata=metadata)
    return field(default=value, metadata=metadata)


def field_maker(settings: Sequence[Setting[Any]]) -> Callable[[str], Any]:
    """The :func:`declared_field` of each of ``settings`` by key: what a part that declares them
    makes its settings dataclass's fields with (``talk_seconds: float = setting_field("live.talk_seconds")``)."""
    by_key = {setting.key: setting for setting in settings}
    return lambda key: declared_field(by_key[key])


def declared_fields(kind: type[Any]) -> dict[str, Field[Any]]:
    """The fields of the dataclass ``kind`` that are settings (:func:`declared_field`), by key."""
    return {f.metadata[KEY]: f for f in fields(kind) if KEY in f.metadata}


class Values(Protocol):
    """What :func:`read_declared` reads from: ``config.Config``."""

    def value(self, key: str) -> Any: ...


def read_declared(kind: type[D], config: Values, **given: Any) -> D:
    """A ``kind`` (a dataclass) whose fields that are settings are read from ``config``, each
    checked against its declaration (a bad value reported, its default used); ``given`` sets the
    other fields, or overrides."""
    values = {f.name: config.value(key) for key, f in declared_fields(kind).items()}
    return kind(**{**values, **given})


def carried(source: Any, kind: type[D]) -> D:
    """A ``kind`` (a dataclass) whose fields that are settings take the values of ``source``'s
    fields that are the same settings (a part's settings handed on from the whole's)."""
    have = {key: getattr(source, f.name) for key, f in declared_fields(type(source)).items()}
    return kind(**{f.name: have[key] for key, f in declared_fields(kind).items() if key in have})


def within(value: Any, minimum: float | None, maximum: float | None) -> None:
    """Raise ConfigError when the number ``value`` is outside the limits."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if minimum is not None and value < minimum:
        raise ConfigError(f"must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"must be at most {maximum}")


def coerce(value: Any, default: Any) -> Any:
    """``value`` held to the type of ``default`` (a whole number may stand for a float)."""
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        raise ConfigError("must be true or false")
    if isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError("must be a whole number")
    if isinstance(default, float):
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(float(value)):
                raise ConfigError("must be a finite number")
            return float(value)
        raise ConfigError("must be a number")
    if isinstance(default, str):
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
        raise ConfigError("must be text")
    if isinstance(default, list | tuple):
        if isinstance(value, list):
            return value
        raise ConfigError("must be a list")
    if isinstance(default, dict):
        if isinstance(value, dict):
            return value
        raise ConfigError("must be a group of settings")
    return value


def _modules() -> Iterator[str]:
    yield from DECLARED_IN
    for declared_here in sorted((Path(__file__).parent / "games").glob("*/settings.py")):
        yield f"assistant.games.{declared_here.parent.name}.settings"


@functools.cache
def declared() -> dict[str, Setting]:
    """Every declared setting by key."""
    found: dict[str, Setting] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for setting in module.SETTINGS:
            if setting.key in found:
                raise ValueError(f"{setting.key} is declared twice ({name})")
            found[setting.key] = setting
    return found


def setting(key: str) -> Setting:
    """The declaration of ``key`` (a ``*`` in a declared key stands for any name)."""
    settings = declared()
    if key in settings:
        return settings[key]
    parts = key.split(".")
    for candidate in settings.values():
        if _matches(candidate.key.split("."), parts):
            return candidate
    raise KeyError(f"{key} is not a declared setting")


def _matches(pattern: list[str], parts: list[str]) -> bool:
    return len(pattern) == len(parts) and all(p in ("*", q) for p, q in zip(pattern, parts, strict=True))


def _is_section(parts: list[str], settings: Mapping[str, Setting]) -> bool:
    """``parts`` is a group holding declared keys (``games``, ``hearing.whisper``, ``characters.virus``)."""
    return any(len(p) > len(parts) and _matches(p[:len(parts)], parts)
               for p in (s.key.split(".") for s in settings.values()))


def _written(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Setting | None]]:
    """Every key written in ``data`` that is a setting or is none (a group's own keys are its
    setting's; a section's keys are walked), with its declaration (None: not a setting)."""
    settings = declared()
    for raw_key, value in data.items():
        key = f"{prefix}{raw_key}"
        try:
            found: Setting | None = setting(key)
        except KeyError:
            found = None
        if found is None and _is_section(key.split("."), settings):
            if isinstance(value, dict):
                yield from _written(value, key + ".")
            continue
        yield key, found


def unknown_keys(data: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    """Every key in ``data`` that is not a setting, with the nearest declared key (or None)."""
    for key, found in _written(data):
        if found is None:
            yield key, nearest(key, declared())


def written_settings(data: Mapping[str, Any]) -> Iterator[str]:
    """Every key in ``data`` that is a setting, as written ("characters.virus.volume")."""
    for key, found in _written(data):
        if found is not None:
            yield key


def nearest(key: str, settings: Mapping[str, Setting]) -> str | None:
    """The declared key most like ``key`` (a misspelt one), or None when none is near."""
    parts = key.split(".")
    names = []
    for declared_key in settings:
        pattern = declared_key.split(".")
        if len(pattern) == len(parts):  # a name for each "*": the one written
            names.append(".".join(q if p == "*" else p for p, q in zip(pattern, parts, strict=True)))
        else:
            names.append(declared_key)
    last = parts[-1]
    for close in difflib.get_close_matches(key, names, n=5, cutoff=0.75):
        # the word itself must be near too ("pitch" is not "voice" for sharing "characters.virus.")
        if difflib.SequenceMatcher(None, close.split(".")[-1], last).ratio() >= 0.6:
            return close
    # the right word under the wrong group ("volume" under "voice")
    same = [n for n in names if n.split(".")[-1] == last and "*" not in n]
    return same[0] if len(same) == 1 else None
