"""How sandbox workers start (issue 14): pycs made once per content and trusted only when ours
alone, the worker running from its pyc, .pth import lines never run, the lean preload, and the
mode probe's trial worker kept as the first worker."""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import codetrial
from codetrial.sandbox import Program, Sandbox, bwrap, bytecode, launch
from codetrial.sandbox.judged import STDLIB
from codetrial.sandbox.launch import MODULE_FILES, PRELOADED, WORKER_PARTS, Options

SRC = str(Path(codetrial.__file__).resolve().parents[1])
WORKER_PYC = f"{bwrap.PYCACHE}/{bytecode.pyc_name(bwrap.WORKER_NAME)}"
PROXY_PYC = f"{bwrap.PYCACHE}/{bytecode.pyc_name('codetrial_proxy')}"
# What a program sees of how its worker was started and what it preloaded.
WORKER_VIEW = """
import os, sys
proxy = sys.modules.get("codetrial_proxy")
__results__ = {
    "main": open("/proc/1/cmdline", "rb").read().split(b"\\0")[5].decode(),
    "proxy_cached": getattr(proxy, "__cached__", None),
    "pycache": sorted(os.listdir("/opt/codetrial/__pycache__"))
               if os.path.isdir("/opt/codetrial/__pycache__") else None,
    "loaded": sorted(n for n in sys.modules if n.startswith("codetrial_")),
}
"""


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """This module's sandboxes make and read their pycs in a cache of their own."""
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODETRIAL_CACHE", str(cache))
        launch._bytecode.cache_clear()
        yield cache
    launch._bytecode.cache_clear()


def sources(tmp_path: Path, **bodies: str) -> dict[str, tuple[str, str]]:
    """Files named by keyword, written under tmp_path, each shown at /opt/t/<name>.py."""
    found = {}
    for name, body in bodies.items():
        host = tmp_path / f"{name}.py"
        host.write_text(body)
        found[name] = (str(host), f"/opt/t/{name}.py")
    return found


def compiled(srcs: dict[str, tuple[str, str]], root: Path) -> Path:
    folder = bytecode.compiled(srcs, root=root)
    assert folder is not None
    return folder


# --- bytecode.compiled -------------------------------------------------------------------


def test_same_sources_give_the_same_folder_made_once(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    srcs = sources(tmp_path, a="X = 1\n", b="Y = 2\n")
    root = tmp_path / "cache"
    folder = compiled(srcs, root)
    assert folder.parent == root / "bytecode"
    assert sorted(p.name for p in folder.iterdir()) == [bytecode.pyc_name("a"),
                                                       bytecode.pyc_name("b")]
    before = {p: p.stat().st_mtime_ns for p in (folder.parent, folder, *folder.iterdir())}
    compiles = []
    real = bytecode.py_compile.compile
    monkeypatch.setattr(bytecode.py_compile, "compile",
                        lambda *a, **k: compiles.append(a) or real(*a, **k))
    assert compiled(dict(reversed(srcs.items())), root) == folder
    assert compiles == []  # nothing compiled, not even a staging copy made and dropped
    assert {p: p.stat().st_mtime_ns for p in before} == before


def test_a_changed_source_or_inside_path_gives_a_new_folder(tmp_path: Path) -> None:
    srcs = sources(tmp_path, a="X = 1\n")
    root = tmp_path / "cache"
    first = compiled(srcs, root)
    Path(srcs["a"][0]).write_text("X = 2\n")
    second = compiled(srcs, root)
    moved = compiled({"a": (srcs["a"][0], "/opt/elsewhere/a.py")}, root)
    assert len({first, second, moved}) == 3
    assert first.is_dir()  # the old content's folder stays as it was
    assert [p.name for p in (root / "bytecode").iterdir() if p.name.startswith(".")] == []


def test_the_default_root_is_codetrial_cache(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODETRIAL_CACHE", str(tmp_path / "env-cache"))
    folder = bytecode.compiled(sources(tmp_path, a="X = 1\n"))
    assert folder is not None and folder.parent == tmp_path / "env-cache" / "bytecode"


def test_the_pyc_names_the_inside_path_and_checks_its_source(tmp_path: Path) -> None:
    body = "def f():\n    return 1\n"
    srcs = sources(tmp_path, mod=body)
    data = (compiled(srcs, tmp_path / "cache") / bytecode.pyc_name("mod")).read_bytes()
    assert data[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(data[4:8], "little") == 0b11  # hash-based, checked when loaded
    assert data[8:16] == importlib.util.source_hash(body.encode())
    code = marshal.loads(data[16:])
    assert code.co_filename == "/opt/t/mod.py"
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["f"]() == 1 and namespace["f"].__code__.co_filename == "/opt/t/mod.py"


@pytest.mark.parametrize("mode", [0o775, 0o757])
def test_a_folder_others_may_write_is_not_trusted(tmp_path: Path, mode: int) -> None:
    srcs = sources(tmp_path, a="X = 1\n")
    folder = compiled(srcs, tmp_path / "cache")
    folder.chmod(mode)
    assert bytecode.compiled(srcs, root=tmp_path / "cache") is None
    folder.chmod(0o755)
    assert bytecode.compiled(srcs, root=tmp_path / "cache") == folder


def test_a_cache_others_may_write_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "cache" / "bytecode").mkdir(parents=True)
    (tmp_path / "cache" / "bytecode").chmod(0o777)
    assert bytecode.compiled(sources(tmp_path, a="X = 1\n"), root=tmp_path / "cache") is None
    assert list((tmp_path / "cache" / "bytecode").iterdir()) == []


def test_a_pyc_anyone_may_write_is_not_trusted(tmp_path: Path) -> None:
    srcs = sources(tmp_path, a="X = 1\n", b="Y = 2\n")
    pyc = compiled(srcs, tmp_path / "cache") / bytecode.pyc_name("b")
    pyc.chmod(0o666)
    assert bytecode.compiled(srcs, root=tmp_path / "cache") is None


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_pyc_replaced_by_another_users_is_not_trusted(tmp_path: Path) -> None:
    srcs = sources(tmp_path, a="X = 1\n")
    pyc = compiled(srcs, tmp_path / "cache") / bytecode.pyc_name("a")
    forged = tmp_path / "forged.pyc"
    forged.write_bytes(pyc.read_bytes())
    forged.chmod(0o644)
    os.chown(forged, 54321, 54321)
    os.replace(forged, pyc)
    assert bytecode.compiled(srcs, root=tmp_path / "cache") is None


def test_a_pyc_replaced_by_a_link_is_not_trusted(tmp_path: Path) -> None:
    srcs = sources(tmp_path, a="X = 1\n")
    pyc = compiled(srcs, tmp_path / "cache") / bytecode.pyc_name("a")
    (tmp_path / "ours.pyc").write_bytes(pyc.read_bytes())
    pyc.unlink()
    pyc.symlink_to(tmp_path / "ours.pyc")
    assert bytecode.compiled(srcs, root=tmp_path / "cache") is None


@pytest.mark.parametrize("bodies", [{"a": "X = 1\n", "b": "def broken(:\n"}, {"a": "X = (\n"}])
def test_a_source_that_does_not_compile_gives_none_and_no_folder(tmp_path: Path,
                                                                 bodies: dict) -> None:
    assert bytecode.compiled(sources(tmp_path, **bodies), root=tmp_path / "cache") is None
    assert list((tmp_path / "cache" / "bytecode").iterdir()) == []  # no staging left behind


def test_a_missing_source_gives_none(tmp_path: Path) -> None:
    srcs = {"gone": (str(tmp_path / "gone.py"), "/opt/t/gone.py")}
    assert bytecode.compiled(srcs, root=tmp_path / "cache") is None


# --- the worker runs from its pyc --------------------------------------------------------


def test_the_worker_and_its_modules_run_from_their_pycs(sandbox: Sandbox, own_cache: Path) -> None:
    out = sandbox.run_sync(Program(code=WORKER_VIEW))
    assert out.status == "ok", out.stderr
    assert out.report["main"] == WORKER_PYC
    assert out.report["proxy_cached"] == PROXY_PYC
    wanted = [bytecode.pyc_name(n) for n in (*MODULE_FILES, bwrap.WORKER_NAME)]
    assert out.report["pycache"] == sorted(wanted)
    assert launch._bytecode().startswith(str(own_cache / "bytecode") + "/")


def test_a_traceback_from_the_pyc_worker_starts_at_the_programs_frame(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(Program(code=textwrap.dedent("""
        def inner():
            raise KeyError("nope")
        inner()
    """)))
    assert out.status == "error" and out.detail == "raised KeyError"
    assert bwrap.WORKER_PATH not in out.stderr and "__pycache__" not in out.stderr
    frames = [line.strip() for line in out.stderr.splitlines() if line.strip().startswith("File")]
    assert frames == ['File "<program>", line 4, in <module>',
                      'File "<program>", line 3, in inner']


def test_an_untrusted_cache_leaves_the_worker_on_its_source(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            bubblewrap: None) -> None:
    (tmp_path / "bytecode").mkdir(mode=0o777)
    (tmp_path / "bytecode").chmod(0o777)
    monkeypatch.setenv("CODETRIAL_CACHE", str(tmp_path))
    launch._bytecode.cache_clear()
    try:
        with Sandbox(workers=1, mode="bubblewrap") as sb:
            out = sb.run_sync(Program(code=WORKER_VIEW))
        assert launch._bytecode() is None
    finally:
        launch._bytecode.cache_clear()
    assert out.status == "ok", out.stderr
    assert out.report["main"] == bwrap.WORKER_PATH
    assert bytecode.pyc_name(bwrap.WORKER_NAME) not in (out.report["pycache"] or [])
    assert "codetrial_proxy" in out.report["loaded"]


# --- .pth files ----------------------------------------------------------------------------


def pth_site(tmp_path: Path) -> tuple[Path, Path]:
    """A site dir whose .pth names a real directory, a missing one, and runs an import line
    that would write a marker file."""
    site, marker = tmp_path / "site", tmp_path / "marker"
    (site / "extra").mkdir(parents=True)
    (site / "zz.pth").write_text(f"# a comment\nimport os; open({str(marker)!r}, 'w').close()\n"
                                 "extra\nmissing\n")
    return site, marker


def test_site_addsitedir_would_run_the_import_line(tmp_path: Path) -> None:
    """The control: the .pth of these tests does write its marker when Python's site runs it."""
    site, marker = pth_site(tmp_path)
    script = f"import site; site.addsitedir({str(site)!r})"
    subprocess.run([sys.executable, "-I", "-S", "-c", script], check=True, timeout=30)
    assert marker.exists()


def test_the_worker_adds_pth_paths_but_never_runs_their_imports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, leftovers) -> None:
    site, marker = pth_site(tmp_path)
    monkeypatch.setattr(bwrap, "site_dirs", lambda: [str(site)])
    with Sandbox(workers=1, mode="process") as sb:
        out = sb.run_sync(Program(code="import sys\n__results__ = sys.path"))
        assert leftovers(sb) == []
    assert out.status == "ok", out.stderr
    assert out.report[-2:] == [str(site), str(site / "extra")]
    assert str(site / "missing") not in out.report
    assert not marker.exists()


# --- what the workers preload ---------------------------------------------------------------


def test_options_without_preload_load_all_our_modules_and_the_usual_stdlib() -> None:
    assert Options().our_modules() == list(MODULE_FILES)
    assert Options().other_modules() == list(STDLIB)
    assert Options(preload=("math",)).other_modules() == ["math"]


def test_a_preload_tuple_loads_the_judges_and_unittest_only_when_named() -> None:
    judges = [*WORKER_PARTS, *(n for n in PRELOADED if n not in launch.UNITTEST_MODULES)]
    assert "codetrial_judge" in judges and "codetrial_unittest" not in judges
    assert Options(preload=()).our_modules() == judges
    assert Options(preload=("numpy",)).our_modules() == judges
    assert Options(preload=("codetrial_unittest",)).our_modules() == list(MODULE_FILES)
    assert Options(preload=("numpy", "codetrial_unittest", "codetrial_judge",
                            "duckdb")).other_modules() == ["numpy", "duckdb"]


def test_a_lean_sandbox_has_the_judge_but_not_unittest(bubblewrap: None, leftovers) -> None:
    with Sandbox(workers=1, mode="bubblewrap", preload=()) as sb:
        out = sb.run_sync(Program(code=textwrap.dedent("""
            import sys
            loaded = sorted(n for n in sys.modules if n.startswith("codetrial_"))
            import codetrial_judge
            __results__ = [loaded, callable(codetrial_judge.answer_calls)]
        """)))
        assert leftovers(sb) == []
    assert out.status == "ok", out.stderr
    loaded, has_judge = out.report
    assert "codetrial_judge" in loaded and has_judge
    assert "codetrial_unittest" not in loaded and "codetrial_subject" not in loaded


STDLIB_VIEW = """
import sys
__results__ = {name: name in sys.modules for name in ("unittest", "argparse", "math", "_ast")}
"""


def test_a_preload_tuple_replaces_the_usual_stdlib(bubblewrap: None) -> None:
    """Only what a suite names is imported (a module a worker holds makes each fork dearer);
    the AST types always are made once, in the worker (compile() needs them)."""
    with Sandbox(workers=1, mode="bubblewrap", preload=("math",)) as lean, \
            Sandbox(workers=1, mode="bubblewrap") as usual:
        lean_view = lean.run_sync(Program(code=STDLIB_VIEW))
        usual_view = usual.run_sync(Program(code=STDLIB_VIEW))
    assert lean_view.report == {"unittest": False, "argparse": False, "math": True, "_ast": True}
    assert usual_view.report == {"unittest": True, "argparse": True, "math": True, "_ast": True}


def test_the_default_sandbox_preloads_unittest(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(Program(code=WORKER_VIEW))
    assert out.status == "ok", out.stderr
    assert out.report["loaded"] == sorted(MODULE_FILES)


# --- the mode probe's worker is kept -------------------------------------------------------


def fresh_process(script: str, cache: Path) -> dict:
    """Run `script` in a new interpreter (whose mode probe has not run) and read the JSON it
    prints last."""
    env = {**os.environ, "PYTHONPATH": SRC, "CODETRIAL_CACHE": str(cache)}
    env.pop("CODETRIAL_SANDBOX", None)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_probes_trial_worker_is_the_first_worker(bubblewrap: None, own_cache: Path) -> None:
    found = fresh_process("""
        import json
        from codetrial.sandbox import Program, Sandbox
        with Sandbox(workers=1, mode="bubblewrap") as sb:
            kept = list(sb.worker_pids)
            out = sb.run_sync(Program(code="import os; __results__ = os.getuid()"))
            after, restarts, uids = list(sb.worker_pids), sb.restarts, sb.uids
        with Sandbox(workers=1, mode="bubblewrap") as later:  # the probe has run: lazy start
            lazy = list(later.worker_pids)
        print(json.dumps({"mode": sb.mode, "kept": kept, "after": after, "status": out.status,
                          "uid": out.report, "uids": uids, "restarts": restarts,
                          "lazy": lazy}))
    """, own_cache)
    assert found["mode"] == "bubblewrap" and found["status"] == "ok"
    assert len(found["kept"]) == 1 and found["after"] == found["kept"]
    assert found["restarts"] == 0 and found["lazy"] == []
    if found["uids"]:
        assert found["uid"] == found["uids"][0]  # the kept worker runs programs as its uid


def test_options_that_break_the_trial_worker_leave_the_mode_to_a_plain_trial(
        bubblewrap: None, own_cache: Path) -> None:
    found = fresh_process("""
        import json
        from codetrial.sandbox import Program, Sandbox, slot
        calls = []
        real = slot.plain_trial
        slot.plain_trial = lambda exe: calls.append(exe) or real(exe)
        build = slot.launch.bubblewrap_launch

        def refused(exe, uid, options):  # this sandbox's workers ask bwrap for a 0-byte /tmp
            started = build(exe, uid, options)
            if options.tmpfs_mb == 7:
                started.argv = [a if a != str(7 << 20) else "0" for a in started.argv]
            return started

        slot.launch.bubblewrap_launch = refused
        with Sandbox(workers=1, mode=None, tmpfs_mb=7) as sb:
            kept = list(sb.worker_pids)
            out = sb.run_sync(Program(code="print(1)"))
        print(json.dumps({"mode": sb.mode, "reason": sb.mode_reason, "calls": calls,
                          "kept": kept, "status": out.status, "detail": out.detail}))
    """, own_cache)
    assert found["mode"] == "bubblewrap" and "no network" in found["reason"]
    assert len(found["calls"]) == 1 and found["kept"] == []
    assert found["status"] == "sandbox_error" and "--size" in found["detail"]


def test_spawned_is_called_once_all_workers_exist_before_any_is_ready(
        bubblewrap: None, own_cache: Path) -> None:
    """The early start's head start ends at `spawned`: it must come before the workers are
    ready (each worker's ready message is held back here until it has come), and only once."""
    found = fresh_process("""
        import json, os, threading
        from codetrial.sandbox import Sandbox, worker
        from codetrial.sandbox.procs import descendants
        spawned, calls, in_time = threading.Event(), [], []
        real_recv = worker.protocol.recv

        def held_back(fd, deadline):
            in_time.append(spawned.wait(10))
            return real_recv(fd, deadline)

        def on_spawned():
            calls.append(len(descendants(os.getpid())))
            spawned.set()

        worker.protocol.recv = held_back
        with Sandbox(workers=2, mode=None, spawned=on_spawned) as sb:
            pass
        print(json.dumps({"mode": sb.mode, "calls": calls, "in_time": in_time}))
    """, own_cache)
    assert found["mode"] == "bubblewrap"
    assert len(found["calls"]) == 1 and found["calls"][0] >= 2  # both bwraps were running
    assert len(found["in_time"]) >= 2 and all(found["in_time"])  # two ready messages, a reply


def test_spawned_is_called_once_when_no_worker_starts_in_the_constructor() -> None:
    calls = []
    with Sandbox(workers=2, mode="process", spawned=lambda: calls.append(1)) as sb:
        assert calls == [1] and sb.worker_pids == []
    assert calls == [1]
