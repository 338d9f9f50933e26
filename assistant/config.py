"""Settings: the user's ``config.yaml`` read once, each value checked against its declaration.

A broken line never stops the game: the problem is reported with the file, line and key,
and that setting keeps its default. A key that is not a setting (a typo) is reported with its
line and the nearest setting, and ignored. The keys are declared in ``assistant.schema``'s
sources; the top-level ones that belong to no part are declared here.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from assistant.schema import ConfigError, LeftOut, Setting, coerce, setting, unknown_keys, within, written_settings

_STAGE_GONE = "the hybrid stage it set was removed, as it did not pay (docs/hearing.md, \"Which stages pay\")."
#: Keys an older config.yaml may still hold, and why they are read no more
RETIRED: dict[str, str] = {f"hearing.whisper.{key}": _STAGE_GONE for key in (
    "unprompted", "runners_up", "runner_up_distance", "weigh", "score_nearest", "score_distance", "score_within",
    "score_margin", "first_within", "again_suppressed", "again_within")}
RETIRED.update({f"hearing.whisper.{key}": "Whisper's free text is written over its own 30 s window whenever the "
                "grammar search is not clear (a window cut shorter made it write real people's button entries twice: "
                "docs/hearing.md, \"The free text\")." for key in ("window", "free_text")})
#: Switches that served a study: their shipped behaviour is now the only one
RETIRED.update({f"hearing.whisper.{key}": why for key, why in {
    "closed_first": "the grammar search always looks first; the switch served a study.",
    "closed_strict": "a command is acted on only when the grammar search finds it clearly likeliest (or the first "
                     "pass heard it too); the switch served a study.",
    "closed_reads": "a clear best sentence is always heard when Whisper's own reading says its command; the switch "
                    "served a study.",
    "spare_first_pass": "the first pass's end-of-speech work is always left undone when the grammar search does not "
                        "need it; the switch served a study.",
    "closed_span": "how far the grammar search looks below its best sentence is fixed; the setting served a study.",
    "closed_window": "the grammar search always hears only the utterance; the switch served a study.",
}.items()})

T = TypeVar("T")

DEFAULT_PATHS = ("config.yaml", "~/.config/omega-assistant/config.yaml")
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _text_path(value: Any) -> str:
    """A folder path: text, never a number (``state_dir: 42`` would make a folder ``42/``)."""
    if not isinstance(value, str):
        raise ConfigError("must be text: the path of a folder")
    return value.strip()


#: The top-level settings no one part owns (the rest are declared by their parts).
SETTINGS: tuple[Setting, ...] = (
    Setting("state_dir", "", "Where unfinished games are journaled (\"\" = this install's own folder).",
            path=True, check=_text_path, player=True),
    Setting("idle_pause_seconds", 150.0, "Pause the game when nobody has played for this long (0: never).",
            minimum=0.0, player=True),
    Setting("volume", 10, "The speaker's volume, 0 (silent) to 10, until the players set another.",
            minimum=0, maximum=10, player=True),
    Setting("allow_poweroff", False, "\"Shut down\" also powers the machine off (a box with no screen)."),
    Setting("poweroff_command", "systemctl poweroff", "The command that powers the machine off."),
    # read by `assistant setup`; hearing's own declarations may take it over
    Setting("hearing.whisper_url", "https://huggingface.co/Systran/faster-whisper-tiny.en/resolve/main/",
            "Where `assistant setup` downloads Whisper tiny.en from."),
)

_UNSET: Any = object()


def _compose(text: str) -> tuple[Any, dict[str, int]]:
    """Parse YAML, remembering the line of every key path ("games.omega_virus.seed")."""
    node = yaml.compose(text)
    lines: dict[str, int] = {}

    def walk(n: yaml.Node | None, path: str) -> Any:
        if n is None:
            return None
        if isinstance(n, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in n.value:
                key = str(key_node.value)
                sub = f"{path}.{key}" if path else key
                lines[sub] = key_node.start_mark.line + 1
                out[key] = walk(value_node, sub)
            return out
        if isinstance(n, yaml.SequenceNode):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(n.value)]
        return yaml.safe_load(yaml.serialize(n))

    return walk(node, ""), lines


@dataclass
class Config:
    data: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    path: Path | None = None
    problems: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Config:
        """Read ``path`` (or the first of config.yaml, ~/.config/...); missing means defaults."""
        candidates = [Path(path)] if path else [Path(p).expanduser() for p in DEFAULT_PATHS]
        if not path:
            candidates.insert(1, PROJECT_ROOT / "config.yaml")
        for candidate in candidates:
            if candidate.is_file():
                return cls.from_file(candidate)
        config = cls()
        if path:
            config.problems.append(f"{path}: no such file; using the default settings.")
        return config

    @classmethod
    def from_file(cls, path: Path) -> Config:
        """The settings in ``path``; a file that cannot be read or is not UTF-8 text gives the
        defaults and one problem naming the file (and the line)."""
        try:
            data = path.read_bytes()
        except OSError as error:
            return cls({}, {}, path, [f"{path}: cannot be read ({error.strerror or error}); "
                                      "using the default settings."])
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[:error.start].count(b"\n") + 1
            return cls({}, {}, path, [f"{path} line {line}: not UTF-8 text (byte 0x{data[error.start]:02x}); "
                                      "save the file as UTF-8. Using the default settings until then."])
        return cls.from_text(text, path)

    @classmethod
    def from_text(cls, text: str, path: Path | None = None) -> Config:
        name = str(path) if path else "config"
        try:
            data, lines = _compose(text)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            if mark is not None and mark.line >= len(text.splitlines()):
                # "but found <stream end>": the construct left open is where the fix goes
                mark = getattr(error, "context_mark", None) or mark
            where = f"{name} line {mark.line + 1}" if mark else name
            problem = getattr(error, "problem", None) or str(error)
            return cls({}, {}, path, [f"{where}: {problem}. Fix that line; using the default "
                                       "settings until then."])
        if data is None:
            data = {}
        if not isinstance(data, dict):
            return cls({}, {}, path, [f"{name}: expected settings (key: value lines); "
                                       "using the defaults."])
        config = cls(data, lines, path, [])
        for key, near in unknown_keys(data):
            if key in RETIRED:
                config.problems.append(f"{config.where(key)}: {key!r} is no longer a setting: {RETIRED[key]} "
                                       "It is ignored; delete the line.")
                continue
            hint = f"; did you mean {near!r}?" if near else " (config.yaml and docs/hearing.md list the settings)."
            config.problems.append(f"{config.where(key)}: {key!r} is not a setting{hint} It is ignored.")
        return config

    def where(self, key: str) -> str:
        name = str(self.path) if self.path else "config"
        line = self.lines.get(key)
        return f"{name} line {line}" if line else name

    def raw(self, key: str, default: Any = None) -> Any:
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def has(self, key: str) -> bool:
        sentinel = object()
        return self.raw(key, sentinel) is not sentinel

    def value(self, key: str, default: Any = _UNSET) -> Any:
        """The setting at dotted ``key``, checked against its declaration (type, choices, limits).

        Unset: the declared default. A bad value is reported in ``problems`` and the default is
        used instead. ``default``: only for a declared per-name key (``characters.*.volume``),
        whose default is each name's own.
        """
        declaration = setting(key)
        fallback = declaration.default if default is _UNSET else default
        value = self.raw(key, None)
        if value is None:
            return fallback
        try:
            return declaration.checked(value, fallback)
        except LeftOut as error:
            self.report(f"{self.where(key)}: {key}: {error}; left out.")
            return error.kept
        except ConfigError as error:
            self.report(f"{self.where(key)}: {key} = {value!r} {error}; using {fallback!r}.")
            return fallback

    def read_written(self) -> None:
        """Read every setting written in the file, so that each bad value is in ``problems`` as it is
        when the part that owns it reads it. A per-name setting (``characters.*.volume``) is left to
        its part: its default is each name's own."""
        for key in written_settings(self.data):
            if "*" not in setting(key).key:
                self.value(key)

    def report(self, problem: str) -> None:
        """Add ``problem`` once (a setting read twice is not reported twice)."""
        if problem not in self.problems:
            self.problems.append(problem)

    def get(self, key: str, default: T, *, choices: Sequence[Any] | None = None,
            minimum: float | None = None, maximum: float | None = None) -> T:
        """A value not declared in the schema (prefer :meth:`value`), checked against the default's
        type and the limits given here. A bad value is reported and the default used instead."""
        value = self.raw(key, None)
        if value is None:
            return default
        try:
            checked = coerce(value, default)
            if choices is not None and checked not in choices:
                raise ConfigError(f"must be one of {', '.join(map(str, choices))}")
            within(checked, minimum, maximum)
        except ConfigError as error:
            self.problems.append(f"{self.where(key)}: {key} = {value!r} {error}; "
                                 f"using {default!r}.")
            return default
        return checked  # type: ignore[no-any-return]


def default_state_dir(root: Path = PROJECT_ROOT) -> Path:
    """This install's own state folder: ``state/`` in the project folder when the assistant
    runs from one (a clone), else a per-user folder keyed to where it is installed, so two
    installs never share (or answer for) each other's unfinished games."""
    if (root / "pyproject.toml").is_file() or (root / "config.yaml").is_file():
        return root / "state"
    key = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "omega-assistant" / key


def state_dir(config: Config) -> Path:
    """Where journals live: $ASSISTANT_STATE_DIR, else the config's state_dir (a relative path is
    inside the project folder), else this install's own folder."""
    env = os.environ.get("ASSISTANT_STATE_DIR")
    if env:
        return Path(env).expanduser()
    configured: str = config.value("state_dir")
    if not configured:
        return default_state_dir()
    path = Path(configured).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path
