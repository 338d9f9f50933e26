"""Hearing's settings, declared once: key, default, limits and one line of doc each.

The engines' settings are declared here; the hybrid's are declared by its stages
(``pipeline``: each stage owns its settings) and gathered here. The schema of ``config.yaml``
gathers these (with every other part's declarations), so the defaults written here are the
only ones: a settings dataclass's field that is one (``HearingSettings``' and its parts',
``PocketSphinxTuning``'s) is made by :func:`setting_field` from the declaration, so it has the
declared default and is read from config.yaml by its key (``schema.read_declared``).
"""

from __future__ import annotations

from typing import Any

from assistant.hearing.pipeline import stage_settings
from assistant.schema import Setting, field_maker

ENGINES = ("auto", "hybrid", "vosk-hybrid", "whisper", "vosk", "pocketsphinx", "text")

SETTINGS: tuple[Setting[Any], ...] = (
    Setting("recognizer", "auto", "Which speech recognizer hears the players.", choices=ENGINES, player=True),
    Setting("hearing.vosk_model", "vosk-model-small-en-us-0.15",
            "The Vosk model: a folder name under models_dir, or a path to a model folder.", player=True),
    Setting("hearing.models_dir", "", "Where models live (\"\" = the project's models/ folder).", player=True),
    Setting("hearing.vosk_url", "https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip",
            "Where `assistant setup` downloads the Vosk model from."),
    Setting("hearing.vosk_sha256", "30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498",
            "The Vosk model zip's SHA-256 (\"skip\" = no check)."),
    Setting("hearing.snap_edits", 1, "A transcript one word away from exactly one allowed sentence is taken (1); "
            "0 takes exact sentences only.", choices=(0, 1)),
    Setting("hearing.vosk.min_confidence", 0.6, "Vosk: reject a transcript when any word's confidence is below this.",
            minimum=0.0, maximum=1.0),
    Setting("hearing.pocketsphinx.min_confidence", 0.0, "PocketSphinx: the least confidence a transcript needs.",
            minimum=0.0, maximum=1.0),
    Setting("hearing.pocketsphinx.chatter_words", 30, "Common words in the chatter loop that absorbs table talk.",
            minimum=0, maximum=300),
    Setting("hearing.pocketsphinx.chatter_entry", 1e-25, "Probability of entering the chatter loop.",
            minimum=1e-30, maximum=1.0),
    Setting("hearing.pocketsphinx.chatter_loop", 0.1, "The chatter loop's repeat probability.",
            minimum=1e-30, maximum=1.0),
    Setting("hearing.pocketsphinx.noise_floor", 30.0, "The quietest noise level (int16 RMS) assumed before speech.",
            minimum=0.0, maximum=3000.0),
    Setting("hearing.pocketsphinx.phone_check", 1.2, "Doubt a command whose heard phones are more than this many "
            "edits per phone from its pronunciation (0: off).", minimum=0.0, maximum=100.0),
    Setting("hearing.pocketsphinx.early_phone_check", 0.8, "The same check before answering early.",
            minimum=0.0, maximum=100.0),
    Setting("hearing.whisper.model", "faster-whisper-tiny.en", "The Whisper model: faster-whisper-tiny.en, "
            "faster-whisper-base, or a folder of one's own.", player=True),
    Setting("hearing.whisper.check_sha256", True, "Check a known model's files against their SHA-256."),
    Setting("hearing.whisper.beam_size", 5, "Whisper's beam width.", minimum=1, maximum=10),
    Setting("hearing.whisper.threads", 0, "CPU threads for Whisper (0 = all).", minimum=0, maximum=64, player=True),
    Setting("hearing.whisper.noise_suppression", 0, "WebRTC noise suppression before Whisper: 0 off, 1-4.",
            minimum=0, maximum=4),
    Setting("hearing.whisper.trim", 12.0, "Whisper hears the utterance from its first to its last moment within "
            "this many dB of its loudest (its grammar search 0.2 s more each side, its free text 0.5 s): the quieter "
            "talk, noise or silence around the player's words is cut (0: all of it).", minimum=0.0, maximum=60.0),
    Setting("hearing.whisper.max_distance", 0.4, "Spotting: the farthest (edits per phone) a command may be from "
            "what Whisper wrote.", minimum=0.0, maximum=2.0),
    Setting("hearing.whisper.margin", 0.75, "Spotting: how much farther every other command must be.",
            minimum=0.0, maximum=20.0),
    Setting("hearing.whisper.outside", 0.5, "Spotting: the cost of words around the command.",
            minimum=0.0, maximum=2.0),
    Setting("hearing.whisper.filler_share", 0.25, "Spotting: the share of that cost for filler words.",
            minimum=0.0, maximum=1.0),
    *stage_settings(),
)


BY_KEY: dict[str, Setting[Any]] = {setting.key: setting for setting in SETTINGS}


#: A dataclass field that is the setting of a key: the declared default, read by its key.
setting_field = field_maker(SETTINGS)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"' if value == "" else value
    return repr(value)


def settings_table() -> str:
    """docs/hearing.md's settings table, written from the declarations (tests/test_hearing_settings.py
    holds the docs to it and prints it when they differ)."""
    from assistant.hearing.pipeline import Cascade

    rows = ["| key | default | range | what it does |", "|---|---|---|---|"]
    for setting in SETTINGS:
        if setting.choices is not None:
            limits = ", ".join(_shown(c) for c in setting.choices)
        elif setting.minimum is not None or setting.maximum is not None:
            limits = f"{_shown(setting.minimum)} to {_shown(setting.maximum)}"
        else:
            limits = ""
        rows.append(f"| `{setting.key}` | {_shown(setting.default)} | {limits} | {setting.doc} |")
    stages = ["| stage | switch | a command it takes is |", "|---|---|---|"]
    for stage in Cascade().stages:
        stages.append(f"| {stage.name} | `{stage.switch}` | {'heard' if stage.sure else 'doubted'} |")
    return "\n".join(rows) + "\n\nThe hybrid's stages, in the order they run:\n\n" + "\n".join(stages) + "\n"
