"""Where the JSON-Schema-Test-Suite comes from: a pinned sdist in the cache, or a user checkout.

The `jsonschema` sdist ships the suite under `json/`; pinning the sdist pins the suite, so two
runs that name the same version grade against the same files.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codetrial.core import UsageError
from codetrial.store.location import cache_dir

SDIST_VERSION = "4.26.0"


@dataclass(frozen=True)
class SuiteSource:
    """A suite root (holds `tests/<draft>/` and `remotes/`) and where it came from."""

    root: Path
    origin: str


def locate(suite_path: str | None) -> SuiteSource:
    if suite_path:
        return SuiteSource(checkout_root(Path(suite_path).expanduser()), f"checkout {suite_path}")
    return SuiteSource(cached_sdist_suite(), f"jsonschema {SDIST_VERSION} sdist")


def suite_copies(suite_path: str | None) -> list[Path]:
    """Every copy of the suite a program could read its expected verdicts from: the user's
    checkout, the cached sdists, and `json/` beside a jsonschema installed from its sources."""
    found = [Path(suite_path).expanduser()] if suite_path else []
    found.append(cache_dir() / "json-schema-test-suite")
    spec = importlib.util.find_spec("jsonschema")
    for location in (spec.submodule_search_locations or []) if spec else []:
        beside = Path(location).parent / "json"
        if (beside / "tests").is_dir():
            found.append(beside)
    return found


def checkout_root(path: Path) -> Path:
    """A checkout of the suite itself, or a folder that holds it under `json/`."""
    for candidate in (path, path / "json"):
        if (candidate / "tests").is_dir():
            return candidate
    raise UsageError(f"{path}: not a JSON-Schema-Test-Suite checkout (no tests/ folder)")


def cached_sdist_suite(version: str = SDIST_VERSION) -> Path:
    target = cache_dir() / "json-schema-test-suite" / f"jsonschema-{version}"
    if not (target / "tests").is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            sdist = download_sdist(version, Path(tmp))
            unpacked = Path(tmp) / "json"
            unpack_suite(sdist, unpacked)
            if not (target / "tests").is_dir():  # another process may have won the race
                shutil.rmtree(target, ignore_errors=True)
                unpacked.rename(target)
    return target


def download_sdist(version: str, dest: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", f"jsonschema=={version}", "-d", str(dest)]
    proc = subprocess.run(command, capture_output=True, text=True)
    found = sorted(dest.glob(f"jsonschema-{version}.tar.gz"))
    if proc.returncode != 0 or not found:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UsageError(f"could not download the jsonschema {version} sdist ({last}); "
                         "pass -o suite_path=DIR with a JSON-Schema-Test-Suite checkout")
    return found[0]


def unpack_suite(sdist: Path, dest: Path) -> None:
    """Extract only `json/tests` and `json/remotes`, refusing links and absolute paths."""
    with tarfile.open(sdist) as tar:
        members = []
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if len(parts) > 2 and parts[1] == "json" and parts[2] in ("tests", "remotes"):
                member.name = str(Path(*parts[2:]))
                members.append(member)
        tar.extractall(dest, members=members, filter="data")
