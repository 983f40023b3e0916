"""A lookup imports only the module that registers the name; anything else still resolves."""

from __future__ import annotations

import sys
import textwrap

import pytest

from codetrial.core import UsageError

MODULES = {
    "__init__.py": """
        from codetrial.core.registry import Registry
        THINGS = Registry("thing", "{pkg}")
        thing = THINGS.register
    """,
    "alpha.py": """
        from {pkg} import thing
        @thing("alpha")
        def alpha(): return "alpha"
    """,
    "beta.py": """
        from {pkg} import thing
        @thing("beta")
        def beta(): return "beta"
    """,
    "looped.py": """
        from {pkg} import thing
        for name in ("gamma", "delta"):
            thing(name)(lambda name=name: name)
    """,
    "moved.py": """
        from {pkg} import thing
        @thing("zeta")
        def zeta(): return "zeta"
    """,
    "zeta.py": "",  # named after an entry that lives in another module
    "nested/__init__.py": "",
    "nested/inner.py": """
        from {pkg} import thing
        @thing("inner")
        def inner(): return "inner"
    """,
}


@pytest.fixture
def things(tmp_path, monkeypatch):
    pkg = f"ct_registry_fixture_{tmp_path.name.replace('-', '_')}"
    for name, text in MODULES.items():
        path = tmp_path / pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text.format(pkg=pkg)))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(pkg)
    yield pkg, module.THINGS
    for name in [m for m in sys.modules if m.startswith(pkg)]:
        del sys.modules[name]


def test_a_lookup_imports_only_the_module_that_registers_the_name(things):
    pkg, registry = things
    assert registry.get("alpha")() == "alpha"
    assert f"{pkg}.alpha" in sys.modules
    assert not {f"{pkg}.beta", f"{pkg}.looped", f"{pkg}.nested"} & set(sys.modules)
    assert registry.get("inner")() == "inner"  # found in a subpackage's file
    assert f"{pkg}.beta" not in sys.modules


def test_an_entry_in_the_module_named_after_it_is_found_without_reading_any_source(
        things, monkeypatch):
    pkg, registry = things
    from codetrial.core import registry as registry_module

    def no_reading(package: str) -> dict[str, str]:
        raise AssertionError(f"read the sources of {package}")

    monkeypatch.setattr(registry_module, "_decorated_names", no_reading)
    assert registry.get("alpha")() == "alpha"
    assert registry.get("beta")() == "beta"


def test_a_module_named_after_an_entry_it_does_not_hold_falls_back_to_the_sources(things):
    pkg, registry = things
    assert registry.get("zeta")() == "zeta"
    assert {f"{pkg}.zeta", f"{pkg}.moved"} <= set(sys.modules)
    assert f"{pkg}.beta" not in sys.modules


def test_names_registered_without_a_literal_decorator_are_still_found(things):
    _, registry = things
    assert registry.get("delta")() == "delta"
    assert registry.names() == ["alpha", "beta", "delta", "gamma", "zeta"]  # top-level modules


def test_an_unknown_name_is_a_usage_error_listing_the_known_ones(things):
    _, registry = things
    with pytest.raises(UsageError, match="unknown thing 'omega': use one of alpha, beta"):
        registry.get("omega")


def test_two_threads_looking_up_at_once_both_see_every_name(things, tmp_path):
    """The command line builds the sandbox in a thread while the main thread prepares the run:
    both may look up the same suite. The one that comes second must not find the registry
    marked loaded while the first is still importing its modules."""
    import threading

    pkg, registry = things
    (tmp_path / pkg / "slow.py").write_text(textwrap.dedent(f"""
        import time
        from {pkg} import thing
        time.sleep(0.3)
        thing("slow")(lambda: "slow")
    """))
    errors: list[str] = []

    def look_up() -> None:
        try:
            registry.get("omega")
        except UsageError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=look_up) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == ["unknown thing 'omega': use one of alpha, beta, delta, gamma, slow, zeta"] * 2
