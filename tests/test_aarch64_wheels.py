"""No compiling on a Pi: scripts/check_aarch64_wheels.py against PyPI for the real
dependencies, and against a small local index whose packages fail in each way it must name.

The PyPI check needs the network and fetches about 330 MB per Python version, so its report
is kept outside the checkout ($XDG_CACHE_HOME, else ~/.cache: omega-assistant/aarch64-wheels/,
one file per dependency list and check script) and used for a week; with no fresh report and
no network it is skipped, saying it is offline."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import subprocess
import sys
import tarfile
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_aarch64_wheels.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


#: How long a report from PyPI stands for this dependency list (PyPI gets new releases).
REPORT_DAYS = 7


def report_cache() -> Path:
    """This dependency list's and check script's report, outside the checkout."""
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    key = hashlib.sha256(repr(sorted(deps)).encode() + SCRIPT.read_bytes()).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "omega-assistant" / "aarch64-wheels" / f"{key}.txt"


def pypi_report(cache: Path, *args: str) -> str:
    """The check's report on the real dependencies: a fresh one kept in ``cache`` by an earlier
    run, else a new one (kept there); skipped, saying why, when the index cannot be reached."""
    if cache.is_file() and time.time() - cache.stat().st_mtime < REPORT_DAYS * 86400:
        return cache.read_text(encoding="utf-8")
    result = run(*args)
    if result.returncode == 2 and "could not check" in result.stderr:
        pytest.skip(f"offline: PyPI cannot be reached and no report of the last {REPORT_DAYS} days is kept in "
                    f"{cache.parent} ({result.stderr.strip().splitlines()[-1]})")
    assert result.returncode == 0, result.stdout + result.stderr
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(result.stdout, encoding="utf-8")
    return result.stdout


@pytest.mark.network
def test_every_runtime_dependency_installs_on_a_64_bit_pi_without_compiling() -> None:
    report = pypi_report(report_cache())
    for release in ("Bookworm (Python 3.11", "Trixie (Python 3.13"):
        assert f"Raspberry Pi OS {release}" in report
    assert report.count("every package installs from a wheel or as pure Python") == 2
    # each dependency of pyproject.toml is listed, with what installs it
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    listed = report.lower().replace("_", "-")
    for dep in deps:
        assert f"    {canonicalize_name(Requirement(dep).name)} " in listed, dep
    assert "manylinux_2_28_aarch64" in report or "manylinux2014_aarch64" in report


def test_offline_with_no_kept_report_is_a_skip_that_says_so(tmp_path: Path) -> None:
    with pytest.raises(pytest.skip.Exception, match="offline: PyPI cannot be reached"):
        pypi_report(tmp_path / "report.txt", "--index-url", "http://127.0.0.1:9/simple", "--python", "3.11")
    assert not (tmp_path / "report.txt").exists()


def test_a_fresh_kept_report_is_used_without_the_network(tmp_path: Path) -> None:
    kept = tmp_path / "report.txt"
    kept.write_text("the kept report\n", encoding="utf-8")
    assert pypi_report(kept, "--index-url", "http://127.0.0.1:9/simple") == "the kept report\n"
    old = time.time() - (REPORT_DAYS + 1) * 86400
    os.utime(kept, (old, old))
    with pytest.raises(pytest.skip.Exception, match="offline"):  # too old: asked again, and offline
        pypi_report(kept, "--index-url", "http://127.0.0.1:9/simple", "--python", "3.11")


# -- a local index of made-up packages -----------------------------------------------------


def wheel_bytes(name: str, version: str, tag: str, requires: list[str] = ()) -> bytes:  # type: ignore[assignment]
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": b"",
        f"{dist}/METADATA": ("Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n"
                             + "".join(f"Requires-Dist: {r}\n" for r in requires)).encode(),
        f"{dist}/WHEEL": f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: {tag}\n".encode(),
    }
    record = []
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{dist}/RECORD,,")
        archive.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return buffer.getvalue()


#: A PEP 517 build backend inside the sdist (no setuptools needed, nothing downloaded): it
#: writes a wheel with the tag given, standing for pure Python or for compiled code.
BACKEND = '''
import base64, hashlib, io, os, zipfile
NAME, VERSION, TAG = {name!r}, "1.0", {tag!r}

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = f"{{NAME}}-{{VERSION}}.dist-info"
    files = {{f"{{NAME}}/__init__.py": b"",
             f"{{dist}}/METADATA": f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n".encode(),
             f"{{dist}}/WHEEL": f"Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: {{TAG}}\\n".encode()}}
    filename = f"{{NAME}}-{{VERSION}}-{{TAG}}.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{{path}},sha256={{digest}},{{len(data)}}")
        record.append(f"{{dist}}/RECORD,,")
        archive.writestr(f"{{dist}}/RECORD", "\\n".join(record) + "\\n")
    return filename
'''


def sdist_bytes(name: str, tag: str) -> bytes:
    files = {
        "pyproject.toml": textwrap.dedent(f"""\
            [build-system]
            requires = []
            build-backend = "backend"
            backend-path = ["."]
            [project]
            name = "{name}"
            version = "1.0"
            """).encode(),
        "backend.py": BACKEND.format(name=name, tag=tag).encode(),
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in files.items():
            info = tarfile.TarInfo(f"{name}-1.0/{path}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def index(tmp_path: Path) -> Path:
    """A PEP 503 index in a folder: one folder per project, holding its files and their list."""
    packages = {
        # a wheel for the Pi, pure Python
        "goodpure": [("goodpure-1.0-py3-none-any.whl", wheel_bytes("goodpure", "1.0", "py3-none-any"))],
        # a compiled wheel for the Pi (cp311 and cp313)
        "goodarm": [(f"goodarm-1.0-cp3{v}-cp3{v}-manylinux_2_28_aarch64.whl",
                     wheel_bytes("goodarm", "1.0", f"cp3{v}-cp3{v}-manylinux_2_28_aarch64")) for v in (11, 13)],
        # compiled for x86 only
        "x86only": [("x86only-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
                     wheel_bytes("x86only", "1.0", "cp311-cp311-manylinux_2_17_x86_64"))],
        # only a source, pure Python
        "sourcepure": [("sourcepure-1.0.tar.gz", sdist_bytes("sourcepure", "py3-none-any"))],
        # only a source that builds compiled code
        "sourcecompiled": [("sourcecompiled-1.0.tar.gz", sdist_bytes("sourcecompiled", "cp311-cp311-linux_x86_64"))],
        # a wheel for the Pi that needs, on the Pi only, a package with no Pi wheel
        "armneeds": [("armneeds-1.0-py3-none-any.whl", wheel_bytes(
            "armneeds", "1.0", "py3-none-any", ['x86only; platform_machine == "aarch64"']))],
    }
    root = tmp_path / "simple"
    for project, files in packages.items():
        (root / project).mkdir(parents=True)
        for filename, data in files:
            (root / project / filename).write_bytes(data)
        links = "".join(f'<a href="{filename}">{filename}</a>\n' for filename, _ in files)
        (root / project / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")
    return root


def project_file(tmp_path: Path, *deps: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text("[project]\nname = 'x'\nversion = '0'\ndependencies = [" + ", ".join(map(repr, deps)) + "]\n")
    return path


def test_wheels_and_pure_python_sources_pass(tmp_path: Path, index: Path) -> None:
    result = run("--pyproject", str(project_file(tmp_path, "goodpure", "goodarm", "sourcepure")),
                 "--index-url", index.as_uri())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "goodarm 1.0: wheel cp311-cp311, manylinux_2_28_aarch64" in result.stdout
    assert "goodarm 1.0: wheel cp313-cp313, manylinux_2_28_aarch64" in result.stdout
    assert "goodpure 1.0: wheel, pure Python (py3)" in result.stdout
    assert "sourcepure 1.0: pure Python (PyPI has only its source" in result.stdout


def test_dependencies_with_no_pi_wheel_fail_each_by_name(tmp_path: Path, index: Path) -> None:
    result = run("--pyproject", str(project_file(tmp_path, "x86only", "goodpure", "sourcecompiled")),
                 "--index-url", index.as_uri(), "--python", "3.11")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Raspberry Pi OS Bookworm (Python 3.11, aarch64): 2 would need compiling or are missing" in result.stdout
    assert "  x86only: no aarch64 wheel on PyPI" in result.stdout
    assert "  sourcecompiled: no aarch64 wheel on PyPI, and its source builds compiled code" in result.stdout
    assert "goodpure" not in result.stdout


def test_a_source_that_compiles_fails_by_name(tmp_path: Path, index: Path) -> None:
    result = run("--pyproject", str(project_file(tmp_path, "sourcecompiled")), "--index-url", index.as_uri(),
                 "--python", "3.13")
    assert result.returncode == 1, result.stdout + result.stderr
    assert ("sourcecompiled: no aarch64 wheel on PyPI, and its source builds compiled code "
            "(sourcecompiled-1.0-cp311-cp311-linux_x86_64.whl): a Pi would need a compiler") in result.stdout
    assert "Trixie" in result.stdout and "Bookworm" not in result.stdout


def test_a_requirement_only_the_pi_has_is_checked_too(tmp_path: Path, index: Path) -> None:
    """pip on x86 reads ``platform_machine == "aarch64"`` as false and leaves x86only out."""
    result = run("--pyproject", str(project_file(tmp_path, "armneeds")), "--index-url", index.as_uri(),
                 "--python", "3.11")
    assert result.returncode == 1, result.stdout + result.stderr
    assert ("  x86only: no aarch64 wheel on PyPI, and its source did not build here" in result.stdout
            and """('x86only; platform_machine == "aarch64"', needed by armneeds on the Pi)""" in result.stdout)


def test_an_unreachable_index_is_could_not_check_not_a_verdict(tmp_path: Path) -> None:
    result = run("--pyproject", str(project_file(tmp_path, "goodpure")), "--index-url",
                 "http://127.0.0.1:9/simple", "--python", "3.11")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Raspberry Pi OS Bookworm: could not check: the package index http://127.0.0.1:9/simple cannot be " \
           "reached" in result.stderr
    assert "Connection refused" in result.stderr


def test_pip_that_cannot_reach_the_index_is_could_not_check_too(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """An index lost after the check began (the script's first look, ``reach``, found it): pip's
    own words ("Retrying ... after connection broken by") stop the check too, as a failure to
    check, not as packages found missing. Here pip is asked directly and retries once, not five
    times (8 s)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_aarch64_wheels", SCRIPT)
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, check)
    spec.loader.exec_module(check)
    real_pip = check.pip
    monkeypatch.setattr(check, "pip", lambda *args: real_pip("--retries", "1", *args))
    (tmp_path / "pure").mkdir()
    failed: dict[str, str] = {}
    with pytest.raises(check.CheckError, match=r"http://127.0.0.1:9/simple cannot be reached \(.*Connection refused"):
        check.resolve_for_pi(check.TARGETS[0], ["goodpure"], "http://127.0.0.1:9/simple", tmp_path,
                             tmp_path / "pure", set(), failed)
    assert not failed
