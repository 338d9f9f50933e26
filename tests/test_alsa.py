"""The assistant's ALSA configuration: the system's, less the optional plugins' devices
(assistant.alsa). Written configurations for the text; the real PortAudio, ALSA and PulseAudio
(test.sh's virtual devices) for what the speaker and the microphone's process find and load."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assistant.alsa import ENV, PLUGIN_FILES, SYSTEM_CONFIG, conf_files, lean_alsa, lean_config
from assistant.live.microphone import Microphone
from tests.audio_env import RATE, private_mic

ROOT = Path(__file__).resolve().parent.parent
#: A piece of a library only an optional plugin loads (the AC3 encoder's, JACK's...).
PLUGIN_LIBRARIES = ("libasound_module_pcm_a52", "libasound_module_pcm_jack", "libavcodec")


def _system(tmp_path: Path, names: list[str]) -> Path:
    folder = tmp_path / "conf.d"
    folder.mkdir()
    for name in names:
        (folder / name).write_text(f"# {name}\n", encoding="utf-8")
    top = tmp_path / "alsa.conf"
    top.write_text(textwrap.dedent(f"""\
        @hooks [
        \t{{
        \t\tfunc load
        \t\tfiles [
        \t\t\t"{tmp_path / 'missing.d'}"
        \t\t\t"{folder}"
        \t\t\t"/etc/asound.conf|||/usr/etc/asound.conf"
        \t\t\t"~/.asoundrc"
        \t\t]
        \t\terrors false
        \t}}
        ]
        cards.@hooks [ {{ func load files [ "{folder}" ] }} ]
        pcm.hw {{ type hw }}
        """), encoding="utf-8")
    return top


def test_the_folders_files_are_named_one_by_one_without_the_plugins(tmp_path: Path) -> None:
    top = _system(tmp_path, ["99-pipewire-default.conf", "60-a52-encoder.conf", "50-pulseaudio.conf",
                             "50-jack.conf", "README", "50-mine.conf.bak"])
    text = lean_config(top)
    assert text is not None
    folder = tmp_path / "conf.d"
    hook = text[:text.index("errors false")]
    # ALSA's order (by name), the plugins' files left out, and only files ending in .conf
    assert hook.index(f'"{folder}/50-pulseaudio.conf"') < hook.index(f'"{folder}/99-pipewire-default.conf"')
    for gone in ("60-a52-encoder.conf", "50-jack.conf", "README", "50-mine.conf.bak", f'"{folder}"'):
        assert gone not in hook
    # the rest as it was: a folder that is not there, alternatives, the player's own file, the
    # cards' hook (read on request, not a list of devices) and every definition after the hook
    for kept in (f'"{tmp_path / "missing.d"}"', '"/etc/asound.conf|||/usr/etc/asound.conf"', '"~/.asoundrc"'):
        assert kept in hook
    assert text[text.index("errors false"):] == top.read_text(encoding="utf-8").split("errors false", 1)[1].join(
        ["errors false", ""])


def test_nothing_changes_without_a_plugin_or_a_load_hook(tmp_path: Path) -> None:
    assert lean_config(_system(tmp_path, ["50-pulseaudio.conf"])) is None
    plain = tmp_path / "plain.conf"
    plain.write_text("pcm.hw { type hw }\n", encoding="utf-8")
    assert lean_config(plain) is None
    assert lean_config(tmp_path / "none.conf") is None


def test_a_path_set_already_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "/usr/share/alsa/alsa.conf")
    assert lean_alsa() is False
    assert os.environ[ENV] == "/usr/share/alsa/alsa.conf"


def test_no_room_for_the_copy_leaves_the_system_s_configuration() -> None:
    """Where no file may grow (a full disk's file-size limit, which a memfd counts against too),
    the system's configuration is used as it is, and sound still starts."""
    code = ("import os; from assistant.alsa import lean_alsa, lean_config; "
            "print(lean_config() is not None, lean_alsa(), os.environ.get('ALSA_CONFIG_PATH'))")
    env = {k: v for k, v in os.environ.items() if k != ENV}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=60, check=True, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)))
    would, took, path = done.stdout.split()
    assert took == "False" and path == "None", done.stdout
    if would == "True":  # this machine has plugins to leave out: the limit, not their absence, stopped it
        assert "Errno" not in done.stderr


def _portaudio(env: dict[str, str]) -> dict[str, object]:
    """What PortAudio lists, and what it loaded, in a new process started as the assistant
    starts its speaker (assistant.voice.playback.import_sounddevice)."""
    code = textwrap.dedent("""\
        import json, os
        from assistant.voice.playback import import_sounddevice
        sd = import_sounddevice()
        devices = [(d["name"], d["max_input_channels"], d["max_output_channels"]) for d in sd.query_devices()]
        print(json.dumps({"devices": devices, "config": os.environ.get("ALSA_CONFIG_PATH"),
                          "maps": open("/proc/self/maps").read()}))
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=60, check=True)
    found: dict[str, object] = json.loads(done.stdout)
    return found


@pytest.mark.audio
def test_portaudio_finds_the_same_devices_without_loading_the_plugins() -> None:
    plugins_here = [p.name for folder in (Path("/etc/alsa/conf.d"), Path("/usr/share/alsa/alsa.conf.d"))
                    for p in conf_files(folder) if p.name in PLUGIN_FILES]
    with private_mic("alsa"):
        env = {k: v for k, v in os.environ.items() if k != ENV}
        lean = _portaudio(env)
        full = _portaudio({**env, ENV: str(SYSTEM_CONFIG)})  # the player's way to keep every plugin
    assert full["config"] == str(SYSTEM_CONFIG)
    assert lean["devices"] == full["devices"] and any(name == "pulse" for name, *_ in lean["devices"])
    assert not any(piece in str(lean["maps"]) for piece in PLUGIN_LIBRARIES)
    if plugins_here:  # this machine has alsa-plugins (test.sh installs PulseAudio's, which brings them)
        assert str(lean["config"]).startswith("/proc/")
        assert any(piece in str(full["maps"]) for piece in PLUGIN_LIBRARIES), "the full configuration loads them"


@pytest.mark.audio
def test_the_microphone_process_reads_the_assistants_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The microphone's process is started with the assistant's ALSA_CONFIG_PATH (its memfd, read
    through /proc while the assistant runs) and hears the microphone with it."""
    monkeypatch.setenv(ENV, "")  # as if unset (and put back as it was afterwards)
    lean = lean_alsa()
    path = os.environ.get(ENV)
    with private_mic("alsa-mic") as fifo:
        mic = Microphone("", 0.1)
        mic.open()
        try:
            assert mic.alive() and mic._process is not None
            child = mic._process.pid
            environ = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
            maps = Path(f"/proc/{child}/maps").read_text()
            with open(fifo, "wb") as out:
                out.write(bytes(RATE))  # half a second of silence
            assert mic.read(timeout=5) is not None, "no sound came through"
        finally:
            mic.close()
    if lean:
        assert f"{ENV}={path}".encode() in environ
        assert not any(piece in maps for piece in PLUGIN_LIBRARIES)
