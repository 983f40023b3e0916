"""One line of `codetrial doctor`: what was checked, whether it is fine, and what was found."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    required: bool = False  # a failed required check makes doctor exit 1
