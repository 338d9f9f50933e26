#!/usr/bin/env python3
"""No compiling on a Pi: check that every runtime dependency installs on 64-bit Raspberry Pi OS
from a wheel, or as pure Python.

For each Raspberry Pi OS release (its Python and glibc versions), pip resolves the
dependencies in pyproject.toml, with everything they pull in, for aarch64 Linux from PyPI,
taking wheels only (``pip install --dry-run --only-binary=:all: --platform ...``): a package
with no wheel for the Pi fails the resolution. A package PyPI has only as source is built
here into a wheel; when that wheel is pure Python (``py3-none-any``) it installs on a Pi
without a compiler too, and the resolution is tried again with it. Then every resolved
package's own requirements are read again under the Pi's environment markers (pip reads
markers for the machine it runs on), and a requirement the Pi needs that the resolution
left out is checked the same way.

Why one whole resolution and not ``pip download --no-deps`` per requirement: the packages
pulled in (onnxruntime, ctranslate2, av, tokenizers...) are where compiled code hides, and
pip's resolver picks the versions a Pi would really get, so the transitive packages must be
in it. The price: pip fetches every wheel to read its metadata (about 330 MB per Python
version, into a temporary folder, nothing cached; 9-15 s per version on the development
machine's network).

Usage: scripts/check_aarch64_wheels.py [--python 3.11] [--pyproject FILE] [--index-url URL]
Exit status: 0 all install, 1 some need compiling (named), 2 the check could not run (no
network, pip failed otherwise). Nothing is kept: everything goes into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


@dataclass(frozen=True)
class Target:
    name: str
    python: str      # "3.11"
    glibc: int       # minor version of glibc 2.x: the newest manylinux_2_x tag it runs

    @property
    def platforms(self) -> list[str]:
        return ["manylinux2014_aarch64", *(f"manylinux_2_{minor}_aarch64" for minor in range(17, self.glibc + 1))]

    @property
    def abi(self) -> str:
        return "cp" + self.python.replace(".", "")

    def environment(self) -> dict[str, str]:
        """PEP 508 marker values on this Pi."""
        return {"python_version": self.python, "python_full_version": f"{self.python}.0",
                "implementation_version": f"{self.python}.0", "implementation_name": "cpython",
                "platform_python_implementation": "CPython", "platform_machine": "aarch64",
                "platform_system": "Linux", "sys_platform": "linux", "os_name": "posix",
                "platform_release": "", "platform_version": "", "extra": ""}


#: 64-bit Raspberry Pi OS: Bookworm (Debian 12: Python 3.11, glibc 2.36) and Trixie
#: (Debian 13: Python 3.13, glibc 2.41).
TARGETS = (Target("Raspberry Pi OS Bookworm", "3.11", 36), Target("Raspberry Pi OS Trixie", "3.13", 41))
PYPI = "https://pypi.org/simple"

#: pip's ways of saying that a package has nothing it may install here.
MISSING_PATTERNS = (
    re.compile(r"Could not find a version that satisfies the requirement ([A-Za-z0-9._-]+)"),
    re.compile(r"No matching distribution found for ([A-Za-z0-9._-]+)"),
)
NO_DISTRIBUTIONS = re.compile(r"no matching distributions available for your environment:\s*\n((?:[ \t]+\S+\s*\n?)+)")
#: pip's ways of saying that it could not reach the index (then nothing is known).
NETWORK_FAILURE = re.compile(r"connection broken by|Failed to establish a new connection|Could not fetch URL|"
                             r"Read timed out|NameResolutionError|ConnectTimeoutError")


class CheckError(RuntimeError):
    """The check could not run (network, pip): not a verdict on the dependencies."""


def reach(index_url: str) -> None:
    """An index on the network that cannot be reached at all (refused, no such host, no answer)
    stops the check at once: pip would say so too, but only after its five retries (8 s)."""
    if urllib.parse.urlsplit(index_url).scheme not in ("http", "https"):
        return  # a folder (file://): pip reads it, and says what it finds
    try:
        with urllib.request.urlopen(urllib.request.Request(index_url, method="HEAD"), timeout=15):
            pass
    except urllib.error.HTTPError:
        return  # it answered: pip says what it makes of the index
    except OSError as error:  # URLError too
        raise CheckError(f"the package index {index_url} cannot be reached "
                         f"({getattr(error, 'reason', error)})") from None


def runtime_requirements(pyproject: Path) -> list[Requirement]:
    with pyproject.open("rb") as file:
        data = tomllib.load(file)
    return [Requirement(line) for line in data["project"]["dependencies"]]


def pip(*args: str) -> subprocess.CompletedProcess[str]:
    # --isolated: PyPI as a Pi sees it, not this machine's pip configuration or local wheels
    return subprocess.run([sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check",
                           "--no-cache-dir", *args], capture_output=True, text=True)


def missing_names(stderr: str) -> set[str]:
    """Packages pip found nothing installable for, from its error output."""
    names: set[str] = {canonicalize_name(m.group(1)) for pattern in MISSING_PATTERNS for m in pattern.finditer(stderr)}
    for block in NO_DISTRIBUTIONS.finditer(stderr):
        names.update(canonicalize_name(line.strip()) for line in block.group(1).splitlines() if line.strip())
    return names


def resolve(target: Target, requirements: list[str], wheelhouse: Path, work: Path,
            index_url: str) -> subprocess.CompletedProcess[str]:
    platforms = [arg for platform in target.platforms for arg in ("--platform", platform)]
    report = work / f"report-{target.python}.json"
    return pip("install", "--dry-run", "--ignore-installed", "--only-binary=:all:", *platforms,
               "--python-version", target.python, "--implementation", "cp", "--abi", target.abi,
               "--target", str(work / "target"), "--index-url", index_url, "--find-links", str(wheelhouse),
               "--quiet", "--report", str(report), *requirements)


def build_pure(name: str, wheelhouse: Path, index_url: str) -> str | None:
    """Build ``name`` from its source into ``wheelhouse``; None when that gives a pure-Python
    wheel, else why it would need compiling on a Pi."""
    before = set(wheelhouse.glob("*.whl"))
    built = pip("wheel", "--no-deps", "--no-binary=:all:", "--index-url", index_url, "-w", str(wheelhouse), name)
    new = sorted(set(wheelhouse.glob("*.whl")) - before)
    if built.returncode != 0 or not new:
        tail = " ".join(line.strip() for line in built.stderr.strip().splitlines()[-2:])
        return f"no aarch64 wheel on PyPI, and its source did not build here ({tail})"
    wheel = new[0].name
    if not wheel.endswith("-none-any.whl"):
        for path in new:
            path.unlink()
        return f"no aarch64 wheel on PyPI, and its source builds compiled code ({wheel}): a Pi would need a compiler"
    return None


def describe(url: str, built_here: set[str], name: str) -> str:
    filename = url.rsplit("/", 1)[-1]
    if name in built_here:
        return "pure Python (PyPI has only its source; built into " + filename + ")"
    parts = filename.removesuffix(".whl").split("-")
    python, abi, platform = parts[-3], parts[-2], parts[-1]
    if abi == "none" and platform == "any":
        return f"wheel, pure Python ({python})"
    return f"wheel {python}-{abi}, {platform.split('.')[0]}"


def pi_only_requirements(target: Target, resolved: dict[str, Any]) -> dict[str, str]:
    """Requirements of the resolved packages that hold on the Pi but were not resolved (pip
    read their markers for this machine): name -> why it is needed."""
    environment = target.environment()
    needed: dict[str, str] = {}
    for name, item in resolved.items():
        for extra in ["", *item.get("requested_extras", [])]:
            for line in item["metadata"].get("requires_dist", []):
                requirement = Requirement(line)
                if requirement.marker is not None and not requirement.marker.evaluate({**environment, "extra": extra}):
                    continue
                if canonicalize_name(requirement.name) not in resolved:
                    needed.setdefault(canonicalize_name(requirement.name), f"{line!r}, needed by {name} on the Pi")
    return needed


def resolve_for_pi(target: Target, wanted: list[str], index_url: str, work: Path, wheelhouse: Path,
                   built_here: set[str], failed: dict[str, str]) -> dict[str, Any] | None:
    """Resolve ``wanted`` with wheels only, building pure-Python sources on the way; the
    resolved packages by name, or None with the reasons in ``failed``. A top-level
    requirement that fails is left out and the rest resolved, so that every such one is named."""
    wanted = list(wanted)
    for _ in range(50):
        result = resolve(target, wanted, wheelhouse, work, index_url)
        if result.returncode == 0:
            report = json.loads((work / f"report-{target.python}.json").read_text())
            resolved: dict[str, Any] = {canonicalize_name(i["metadata"]["name"]): i for i in report["install"]}
            return None if failed else resolved
        if NETWORK_FAILURE.search(result.stderr):
            lines = [line for line in result.stderr.splitlines() if NETWORK_FAILURE.search(line)]
            raise CheckError(f"the package index {index_url} cannot be reached ({lines[-1].strip()})")
        missing = missing_names(result.stderr)
        if not missing:
            raise CheckError(f"pip could not resolve for {target.name}:\n{result.stderr.strip()[-2000:]}")
        new = missing - built_here - set(failed)
        for name in sorted(new):
            why = build_pure(name, wheelhouse, index_url)
            if why is None:
                built_here.add(name)
            else:
                failed[name] = why
        for name in missing - built_here:
            failed.setdefault(name, "no aarch64 wheel on PyPI (nor a pure-Python build that fits)")
        top = [r for r in wanted if canonicalize_name(Requirement(r).name) not in failed]
        if failed and (len(top) == len(wanted) or not top):
            return None  # something deeper failed, or nothing is left to try
        wanted = top
    raise CheckError(f"pip kept failing for {target.name}")


def _unmarked(requirement: Requirement) -> str:
    """The requirement without its marker (already found true on the Pi): pip would read it for
    this machine and leave out what only a Pi needs."""
    bare = Requirement(str(requirement))
    bare.marker = None
    return str(bare)


def check(target: Target, requirements: list[Requirement], index_url: str) -> tuple[list[str], list[str]]:
    """(lines to print, problems) for one Pi OS release."""
    reach(index_url)
    wanted = [_unmarked(r) for r in requirements if r.marker is None or r.marker.evaluate(target.environment())]
    failed: dict[str, str] = {}
    built_here: set[str] = set()
    why_wanted: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="aarch64-check-") as tmp:
        work, wheelhouse = Path(tmp), Path(tmp) / "pure"
        wheelhouse.mkdir()
        while True:
            resolved = resolve_for_pi(target, wanted, index_url, work, wheelhouse, built_here, failed)
            if resolved is None:
                return [], [f"{name}: {why}" + (f" ({why_wanted[name]})" if name in why_wanted else "")
                            for name, why in sorted(failed.items())]
            more = pi_only_requirements(target, resolved)
            if not more:
                break
            why_wanted.update(more)
            wanted += sorted(more)
    top = {canonicalize_name(r.name) for r in requirements} | set(why_wanted)
    lines = []
    for heading, names in (("pyproject.toml dependencies", sorted(top)),
                           ("pulled in by them", sorted(set(resolved) - top))):
        if not names:
            continue
        lines.append(f"  {heading}:")
        for name in names:
            item = resolved.get(name)
            if item is None:  # a dependency whose marker leaves it out on the Pi
                lines.append(f"    {name}: not needed on this system (its marker)")
                continue
            meta = item["metadata"]
            extra = f" ({why_wanted[name]})" if name in why_wanted else ""
            lines.append(f"    {meta['name']} {meta['version']}: "
                         f"{describe(item['download_info']['url'], built_here, name)}{extra}")
    return lines, []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pyproject", type=Path, default=Path(__file__).resolve().parent.parent / "pyproject.toml")
    parser.add_argument("--python", action="append", help="only this Python version (3.11, 3.13)")
    parser.add_argument("--index-url", default=PYPI)
    args = parser.parse_args(argv)
    requirements = runtime_requirements(args.pyproject)
    targets = [t for t in TARGETS if not args.python or t.python in args.python]
    if not targets:
        parser.error(f"--python: one of {', '.join(t.python for t in TARGETS)}")
    status = 0
    for target in targets:
        started = time.monotonic()
        try:
            lines, problems = check(target, requirements, args.index_url)
        except CheckError as error:
            print(f"{target.name}: could not check: {error}", file=sys.stderr)
            return 2
        seconds = time.monotonic() - started
        if problems:
            status = 1
            print(f"{target.name} (Python {target.python}, aarch64): {len(problems)} would need compiling "
                  f"or are missing ({seconds:.0f} s):")
            for problem in problems:
                print(f"  {problem}")
        else:
            print(f"{target.name} (Python {target.python}, glibc 2.{target.glibc}, aarch64): every package "
                  f"installs from a wheel or as pure Python ({seconds:.0f} s)")
        for line in lines:
            print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())
