"""How the assistant speaks: ``voice.*`` and ``characters.*``, declared once.

A character's own defaults (the Virus's pitch, BSat1's robot) are in
``assistant.voice.characters.default_characters()``; here each key of a character is declared for
every name (``characters.*.volume``), with its limits.
"""

from __future__ import annotations

from assistant.schema import Setting

SETTINGS: tuple[Setting, ...] = (
    Setting("voice.output_device", "", "The speaker: part of its device name (\"\" = the system default).",
            player=True),
    Setting("voice.cache_dir", "voices/cache", "Where rendered phrases are kept (relative: in the project folder).",
            path=True),
    Setting("voice.voices_dir", "voices", "Where the Piper voices named under characters are looked for.",
            path=True),
    Setting("voice.render_at_start", True, "Render the game's fixed phrases in the background when it starts."),
    Setting("voice.memory_cache_mb", 16, "Memory for the most recent rendered phrases, in MB (the rest are read "
            "again from cache_dir).", minimum=1, maximum=4096),
    Setting("voice.pause_seconds", 0.12, "Silence after each sentence, in seconds.", minimum=0.0, maximum=2.0),
    Setting("voice.threads", 0, "Processor threads for Piper (0 = all cores).", minimum=0, maximum=64),
    Setting("voice.glitch_seed", -1, "A number makes BSat1's live glitches the same every run (-1: random).",
            minimum=-1),
    Setting("voice.pronounce", {}, "How written names are said (written: spoken).", group=True),
    Setting("voice.sounds", {}, "Sounds by name: change one or add one.", group=True),
    Setting("characters.*.voice", None, "A Piper voice (\"\" = the bundled one), a name in voices_dir or a path."),
    Setting("characters.*.speaker_id", 0, "The speaker of a multi-speaker voice.", minimum=0),
    Setting("characters.*.length_scale", None, "Piper's length scale (above 1 speaks slower).",
            minimum=0.3, maximum=3.0),
    Setting("characters.*.noise_scale", None, "Piper's noise scale (lower = flatter).", minimum=0.0, maximum=2.0),
    Setting("characters.*.noise_w_scale", None, "Piper's noise width scale.", minimum=0.0, maximum=2.0),
    Setting("characters.*.volume", None, "The character's volume (0-2).", minimum=0.0, maximum=2.0),
    Setting("characters.*.effects", None, "Effects applied in order ({type: pitch, semitones: -5}, ...)."),
)
