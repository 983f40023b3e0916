"""A package's names imported on first use (PEP 562), so that importing one of its modules
does not import all of them."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def exports(package: str, module_of: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` that finds each name in its submodule."""

    def __getattr__(name: str) -> Any:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module_of[name]}"), name)

    return __getattr__
