"""``assistant setup``'s model download against a real HTTP server on 127.0.0.1.

The server serves a small zip made here, shaped like a Vosk model; it can break off after
some bytes (to test resuming) or ignore Range requests. Nothing contacts any other address.
Set-up asks it for nothing unless the Vosk model is wanted (``--vosk``, or recognizer vosk or
vosk-hybrid), and a Vosk model on disk never changes what ``auto`` picks.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import socket
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from assistant.config import Config
from assistant.games import game_module
from assistant.hearing import HearingSettings, choose, open_ear
from assistant.hearing.events import Transcript
from assistant.hearing.vosk_engine import DEFAULT_MODEL, is_model
from assistant.setup import NoNetwork, SetupError, download, setup_main, unpack
from tests.support.spoken import SPEAKERS, ClipMaker


def model_zip(name: str = DEFAULT_MODEL, extra: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(f"{name}/am/final.mdl", b"\x01" * 150_000)
        zf.writestr(f"{name}/conf/model.conf", b"--sample-frequency=16000\n")
        zf.writestr(f"{name}/README", b"a test model, not a real one\n")
        for path, data in (extra or {}).items():
            zf.writestr(path, data)
    return buffer.getvalue()


class Server:
    """Serves ``data`` at /model.zip; honours Range unless told not to; can stop early once."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.cut_after: int | None = None
        self.ranges = True
        self.requests: list[str | None] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                asked = self.headers.get("Range")
                owner.requests.append(asked)
                if self.path != "/model.zip":
                    self.send_error(404)
                    return
                start = 0
                if asked and owner.ranges:
                    start = int(asked.split("=")[1].split("-")[0])
                    if start >= len(owner.data):
                        self.send_error(416)
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(owner.data) - 1}/{len(owner.data)}")
                else:
                    self.send_response(200)
                body = owner.data[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if owner.cut_after is not None:
                    self.wfile.write(body[:owner.cut_after])
                    self.wfile.flush()
                    owner.cut_after = None
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/model.zip"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server(model_zip())
    yield s
    s.close()


def closed_port_url() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/model.zip"


def config_for(tmp_path: Path, url: str, sha: str) -> Config:
    return Config.from_text(f"hearing:\n  models_dir: {tmp_path / 'models'}\n  vosk_url: {url}\n"
                            f"  vosk_sha256: {sha}\n")


def run_setup(config: Config, vosk: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    code = setup_main(argparse.Namespace(skip_voices=True, vosk=vosk), config, out)
    return code, out.getvalue()


def test_setup_without_vosk_asks_the_server_for_nothing(server: Server, tmp_path: Path) -> None:
    code, text = run_setup(config_for(tmp_path, server.url, hashlib.sha256(server.data).hexdigest()))
    assert code == 0, text
    assert server.requests == []
    assert "Speech model" not in text and "Whisper: tiny.en is ready" in text and "Set-up done." in text
    assert not (tmp_path / "models" / DEFAULT_MODEL).exists()


def test_setup_with_vosk_downloads_verifies_and_unpacks_and_auto_still_picks_pocketsphinx(
        server: Server, tmp_path: Path) -> None:
    sha = hashlib.sha256(server.data).hexdigest()
    config = config_for(tmp_path, server.url, sha)
    code, text = run_setup(config, vosk=True)
    assert code == 0, text
    folder = tmp_path / "models" / DEFAULT_MODEL
    assert is_model(folder)
    assert (folder / "README").read_bytes() == b"a test model, not a real one\n"
    assert not list((tmp_path / "models").glob("*.zip*"))
    assert "100%" in text and "checksum verified" in text
    assert "config.yaml's recognizer (auto) does not hear with Vosk" in text and "recognizer: vosk-hybrid" in text
    settings = HearingSettings.from_config(config)
    assert choose(settings).engine == "pocketsphinx"  # the model on disk changes nothing for auto
    settings.recognizer = "vosk-hybrid"
    assert (choose(settings).engine, choose(settings).second) == ("vosk", "whisper")
    code, text = run_setup(config, vosk=True)  # a second run finds it installed
    assert code == 0 and "already installed" in text
    assert len(server.requests) == 1


@pytest.mark.parametrize("recognizer", ["vosk-hybrid", "vosk"])
def test_a_config_that_hears_with_vosk_gets_its_model_without_the_flag(server: Server, tmp_path: Path,
                                                                         recognizer: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(f"recognizer: {recognizer}\nhearing:\n  models_dir: {tmp_path / 'models'}\n"
                    f"  vosk_url: {server.url}\n  vosk_sha256: {hashlib.sha256(server.data).hexdigest()}\n",
                    encoding="utf-8")
    config = Config.load(str(path))
    code, text = run_setup(config)
    assert code == 0, text
    assert len(server.requests) == 1 and is_model(tmp_path / "models" / DEFAULT_MODEL)
    assert "Speech model: Vosk is ready" in text and "does not hear with Vosk" not in text
    assert choose(HearingSettings.from_config(config)).engine == "vosk"


def test_download_resumes_where_it_broke_off(server: Server, tmp_path: Path) -> None:
    sha = hashlib.sha256(server.data).hexdigest()
    target = tmp_path / "m.zip"
    server.cut_after = 60_000
    with pytest.raises(SetupError, match="resume"):
        download(server.url, target, sha, lambda done, total: None)
    part = tmp_path / "m.zip.part"
    assert part.stat().st_size == 60_000
    seen: list[tuple[int, int | None]] = []
    download(server.url, target, sha, lambda done, total: seen.append((done, total)))
    assert server.requests == [None, "bytes=60000-"]
    assert target.read_bytes() == server.data and not part.exists()
    assert seen[0] == (60_000, len(server.data)) and seen[-1] == (len(server.data), len(server.data))


def test_download_starts_over_when_the_server_ignores_ranges(server: Server, tmp_path: Path) -> None:
    (tmp_path / "m.zip.part").write_bytes(b"stale bytes")
    server.ranges = False
    download(server.url, tmp_path / "m.zip", hashlib.sha256(server.data).hexdigest(), lambda d, t: None)
    assert (tmp_path / "m.zip").read_bytes() == server.data


def test_finished_part_file_is_not_fetched_again(server: Server, tmp_path: Path) -> None:
    (tmp_path / "m.zip.part").write_bytes(server.data)
    download(server.url, tmp_path / "m.zip", hashlib.sha256(server.data).hexdigest(), lambda d, t: None)
    assert server.requests == [f"bytes={len(server.data)}-"]
    assert (tmp_path / "m.zip").read_bytes() == server.data


def test_checksum_mismatch_deletes_the_file_and_installs_nothing(server: Server, tmp_path: Path) -> None:
    code, text = run_setup(config_for(tmp_path, server.url, "0" * 64), vosk=True)
    assert code == 1
    assert "SHA-256" in text and "hearing.vosk_sha256" in text
    assert not (tmp_path / "models" / DEFAULT_MODEL).exists()
    assert not list((tmp_path / "models").glob("*.zip*"))


@pytest.mark.model
def test_no_network_is_said_plainly_and_pocketsphinx_still_hears(tmp_path: Path) -> None:
    config = config_for(tmp_path, closed_port_url(), "skip")
    code, text = run_setup(config, vosk=True)
    assert code == 0  # set-up that fails only for want of network is done: it plays without
    assert "no network: could not reach 127.0.0.1" in text
    assert "Set-up done, without the Vosk speech model" in text and "run `assistant setup --vosk` again" in text
    assert "PocketSphinx" in text
    settings = HearingSettings.from_config(config)
    assert choose(settings).engine == "pocketsphinx"
    ear = open_ear(settings, game_module("omega-virus").sentences())
    heard = ear.hear(ClipMaker(tmp_path / "clips").say("explore one zero zero", SPEAKERS[0]))
    assert isinstance(heard, Transcript) and heard.command is not None
    assert heard.command.intent == "explore"


def test_no_network_raises_no_network(tmp_path: Path) -> None:
    with pytest.raises(NoNetwork):
        download(closed_port_url(), tmp_path / "m.zip", None, lambda d, t: None)


def test_http_errors_are_named(server: Server, tmp_path: Path) -> None:
    with pytest.raises(SetupError, match="404"):
        download(server.url.replace("model.zip", "other.zip"), tmp_path / "m.zip", None, lambda d, t: None)


@pytest.mark.parametrize("extra, message", [
    ({"../evil": b"x"}, "unsafe path"),
])
def test_unsafe_zips_are_refused(tmp_path: Path, extra: dict[str, bytes], message: str) -> None:
    archive = tmp_path / "m.zip"
    archive.write_bytes(model_zip(extra=extra))
    with pytest.raises(SetupError, match=message):
        unpack(archive, tmp_path / "models", DEFAULT_MODEL)
    assert not (tmp_path / "models" / DEFAULT_MODEL).exists()


def test_zip_without_a_model_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "m.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("something/else.txt", b"x")
    archive.write_bytes(buffer.getvalue())
    with pytest.raises(SetupError, match="does not hold a Vosk model"):
        unpack(archive, tmp_path / "models", DEFAULT_MODEL)
    archive.write_bytes(b"not a zip")
    with pytest.raises(SetupError, match="not a zip"):
        unpack(archive, tmp_path / "models", DEFAULT_MODEL)


def test_a_differently_named_top_folder_is_installed_under_the_configured_name(tmp_path: Path) -> None:
    archive = tmp_path / "m.zip"
    archive.write_bytes(model_zip(name="vosk-model-other"))
    assert unpack(archive, tmp_path / "models", DEFAULT_MODEL) == tmp_path / "models" / DEFAULT_MODEL
    assert is_model(tmp_path / "models" / DEFAULT_MODEL)


def test_setup_through_the_command_line(server: Server, tmp_path: Path) -> None:
    import subprocess
    import sys

    sha = hashlib.sha256(server.data).hexdigest()
    config = tmp_path / "config.yaml"
    config.write_text(f"hearing:\n  models_dir: {tmp_path / 'models'}\n  vosk_url: {server.url}\n"
                      f"  vosk_sha256: {sha}\n", encoding="utf-8")
    command = [sys.executable, "-m", "assistant", "--config", str(config), "setup", "--skip-voices"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.requests == [] and "Speech model" not in done.stdout  # not asked for: not fetched
    done = subprocess.run([*command, "--vosk"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Speech model: Vosk is ready at {tmp_path / 'models' / DEFAULT_MODEL}." in done.stdout
    assert "100%" in done.stdout  # progress, every 10 % when not on a terminal
    assert is_model(tmp_path / "models" / DEFAULT_MODEL)


def test_setup_without_network_counts_as_done_through_the_command_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    config = tmp_path / "config.yaml"
    config.write_text(f"hearing:\n  models_dir: {tmp_path / 'models'}\n  vosk_url: {closed_port_url()}\n",
                      encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "setup", "--skip-voices",
                           "--vosk"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Set-up done, without the Vosk speech model" in done.stdout
    assert "run `assistant setup --vosk` again when online to add it" in done.stdout


def test_setup_help_says_when_vosk_is_downloaded_and_vosk_cannot_go_with_skip_model(
        capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["setup", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "downloaded only with --vosk, or when config.yaml says recognizer: vosk-hybrid or vosk" in text
    assert "PocketSphinx first and Whisper tiny.en second" in text
    assert build_parser().parse_args(["setup", "--vosk"]).vosk
    with pytest.raises(SystemExit):
        build_parser().parse_args(["setup", "--vosk", "--skip-model"])
