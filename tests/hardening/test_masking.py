"""Answer keys are invisible inside the sandbox, in every suite.

A program searches every readable directory of its sandbox (os.walk from /) for the task's
canonical solution, expected values or the suite's data file, by name and by content (gzip
included). Run with the masks the suite names (runner.hidden.hidden_paths), it finds nothing;
run in the same sandbox without them (the control), it finds what it looks for, so these
tests can fail. Outside the Python installation and the system directories nothing of the
host is bound anyway, so the fixtures are written into site-packages, which the sandbox shows.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codetrial.runner.hidden import hidden_paths
from codetrial.sandbox import Limits, Program, Sandbox
from codetrial.sandbox.bwrap import site_dirs
from codetrial.suites import Suite, create_suite
from codetrial.suites.humaneval import read_problems
from tests.jsonschema.fixture import GROUPS, make_suite
from tests.suites.exercism_fixture import make_exercises

SEARCH_SECONDS = 300.0  # generous: a loaded 2-core machine walks slowly
CASES = Path(__file__).resolve().parents[1] / "synth" / "cases"
EARLIER_ANSWER = "earlier answer: 6 * 7 = 42"

# The needles arrive encoded, so that the program's own text (a file in its workdir) and its
# command line never hold them. Files up to 1 MB are read (gzip ones decompressed).
SEARCH = '''
import base64, gzip, os, time

NEEDLES = [base64.b64decode(n) for n in {needles!r}]
NAMES = [base64.b64decode(n).decode() for n in {names!r}]
READ = (".json", ".jsonl", ".gz", ".py", ".yaml", ".yml", ".md", ".txt", ".sqlite")
deadline = time.monotonic() + {seconds!r}
found, complete = [], True


def content(path):
    if os.path.getsize(path) > 1 << 20:
        return b""
    with open(path, "rb") as fh:
        data = fh.read()
    return gzip.decompress(data) if path.endswith(".gz") else data


for top, dirs, files in os.walk("/"):
    if time.monotonic() > deadline:
        complete = False
        break
    dirs[:] = [d for d in dirs if os.path.join(top, d) not in ("/proc", "/sys", "/dev")]
    for name in files:
        path = os.path.join(top, name)
        found += [[path, n] for n in NAMES if n in path]
        if name.endswith(READ):
            try:
                data = content(path)
            except (OSError, EOFError, ValueError, MemoryError):
                continue
            found += [[path, n.decode()] for n in NEEDLES if n in data]
__results__ = {{"found": found, "complete": complete}}
'''


def encoded(values: list[str]) -> list[str]:
    return [base64.b64encode(v.encode()).decode() for v in values]


def search(hidden: tuple[str, ...], needles: list[str], names: list[str]) -> dict[str, list[str]]:
    """needle or name -> paths where a fresh bubblewrap sandbox that masks `hidden` shows it."""
    code = SEARCH.format(needles=encoded(needles), names=encoded(names), seconds=SEARCH_SECONDS)
    limits = Limits(wall_seconds=SEARCH_SECONDS + 30, cpu_seconds=SEARCH_SECONDS + 30)
    with Sandbox(workers=1, mode="bubblewrap", hidden=hidden) as sandbox:
        out = sandbox.run_sync(Program(code=code), limits)
    assert out.status == "ok", out.stderr[-2000:]
    assert out.report["complete"], "the search did not finish: it would prove nothing"
    hits: dict[str, list[str]] = {}
    for path, what in out.report["found"]:
        if not foreign(path):
            hits.setdefault(what, []).append(path)
    return hits


PREFIX = "codetrial-masktest-"
OWN: list[str] = []  # this session's fixture folder


def foreign(path: str) -> bool:
    """In the fixture folder of another test session running at the same time (the same keys,
    where this session's masks do not reach)."""
    return any(part.startswith(PREFIX) and part not in OWN for part in Path(path).parts)


@dataclass
class Keys:
    """What one suite must hide: text in its files, names of its files; and what it masks."""

    suite: Suite
    needles: list[str]
    names: list[str] = field(default_factory=list)
    hidden: tuple[str, ...] = ()


def readable(root: Path) -> None:
    """The program runs as another uid: what the test wrote must be world-readable."""
    for path in [root, *root.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


def longest_line(text: str) -> str:
    return max(text.splitlines(), key=len).strip()


def human_eval_keys(name: str) -> Keys:
    """The longest line of HumanEval/0's canonical solution, and the data file's name."""
    solution = read_problems()[0]["canonical_solution"]
    return Keys(create_suite(name, {}), [longest_line(solution)], ["HumanEval.jsonl"])


def exercism_keys(root: Path) -> Keys:
    track = make_exercises(root / "track", names=["two-fer"])
    example = (track / "two-fer" / ".meta" / "example.py").read_text()
    return Keys(create_suite("exercism", {"path": str(track)}),
                [longest_line(example), "class TwoFerTest"])


def jsonschema_keys(root: Path) -> dict[str, Keys]:
    """A checkout named with suite_path, and the pinned sdist's suite as the harness caches it
    (placed there: no download)."""
    from codetrial.suites.jsonschema.source import SDIST_VERSION, cache_dir

    checkout = make_suite(root / "checkout", {"type": GROUPS["type"]})
    cached = cache_dir() / "json-schema-test-suite" / f"jsonschema-{SDIST_VERSION}"
    shutil.copytree(make_suite(root / "build", {"enum": GROUPS["enum"]}) / "json", cached)
    shutil.rmtree(root / "build")
    return {"jsonschema checkout": Keys(create_suite("jsonschema", {"suite_path": str(checkout)}),
                                        ['"a float with zero fraction"']),
            "jsonschema cache": Keys(create_suite("jsonschema", {}), ['"true is not one"'])}


def yaml_keys(root: Path) -> Keys:
    import yaml

    cases = root / "cases"
    shutil.copytree(CASES, cases, ignore=shutil.ignore_patterns("duckdb_*"))
    case = yaml.safe_load((cases / "python_gcd.yaml").read_text())
    return Keys(create_suite("yaml", {"path": str(cases)}),
                [longest_line(case["canonical_solution"])])


def harness_keys(home: Path) -> Keys:
    """Earlier runs' answers (the store, the reply cache) stay out of reach in every suite."""
    home.mkdir(parents=True)
    (home / "cache.sqlite").write_bytes(b"SQLite format 3\0" + EARLIER_ANSWER.encode())
    with gzip.open(home / "export.jsonl.gz", "wt") as fh:
        fh.write(json.dumps({"completion": EARLIER_ANSWER}))
    return Keys(create_suite("humaneval", {}), [EARLIER_ANSWER])


@pytest.fixture(scope="module")
def keys(bubblewrap: None) -> Iterator[dict[str, Keys]]:
    """Every suite's answer keys, written where the sandbox can see them (site-packages), with
    the harness's home and cache there too; all removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=site_dirs()[0]))
    OWN.append(folder.name)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("CODETRIAL_HOME", str(folder / "home"))
            mp.setenv("CODETRIAL_CACHE", str(folder / "cache"))
            found = {"humaneval": human_eval_keys("humaneval"),
                     "humaneval-edit": human_eval_keys("humaneval-edit"),
                     "exercism": exercism_keys(folder), **jsonschema_keys(folder),
                     "yaml": yaml_keys(folder), "harness home": harness_keys(folder / "home")}
            for k in found.values():
                k.hidden = hidden_paths(k.suite)
        readable(folder)
        yield found
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def alike(keys: dict[str, Keys]) -> dict[tuple[str, ...], list[Keys]]:
    """Suites that mask the same paths share one search."""
    groups: dict[tuple[str, ...], list[Keys]] = {}
    for k in keys.values():
        groups.setdefault(k.hidden, []).append(k)
    return groups


@pytest.fixture(scope="module")
def searched(keys: dict[str, Keys]) -> dict[tuple[str, ...] | None, dict[str, list[str]]]:
    """One search per set of masks, and (None) the control: one search of a sandbox without
    masks, for every suite's keys. Two run at a time, each in its own sandbox."""
    jobs: dict[tuple[str, ...] | None, tuple[tuple[str, ...], list[Keys]]] = {
        None: ((), list(keys.values())), **{h: (h, ks) for h, ks in alike(keys).items()}}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(search, hidden, [n for k in ks for n in k.needles],
                                     [n for k in ks for n in k.names])
                   for name, (hidden, ks) in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


SUITES = ["humaneval", "humaneval-edit", "exercism", "jsonschema checkout", "jsonschema cache",
          "yaml", "harness home"]


@pytest.mark.parametrize("name", SUITES)
def test_answer_keys_are_masked(keys: dict[str, Keys],
                                searched: dict[tuple[str, ...] | None, dict[str, list[str]]],
                                name: str) -> None:
    wanted = keys[name].needles + keys[name].names
    assert all(searched[None].get(w) for w in wanted), \
        f"control: unmasked, each key is found: {wanted}"
    seen = searched[keys[name].hidden]
    assert {w: seen[w] for w in wanted if w in seen} == {}


def test_process_mode_says_what_it_cannot_mask(keys: dict[str, Keys]) -> None:
    """No mount namespace: the weak mode names every answer key it leaves visible."""
    hidden = keys["yaml"].hidden
    with Sandbox(workers=1, mode="process", hidden=hidden) as sandbox:
        assert sandbox.masked == [] and keys["yaml"].suite.options["path"] in sandbox.unmasked
        assert "stay visible" in sandbox.mode_reason


def test_bubblewrap_says_what_it_may_not_mask(bubblewrap: None) -> None:
    """A suite that names a directory programs need (here site-packages) is told so."""
    with Sandbox(workers=1, mode="bubblewrap", hidden=(site_dirs()[0],)) as sandbox:
        assert sandbox.masked == [] and sandbox.unmasked == [site_dirs()[0]]
        assert "stay visible" in sandbox.mode_reason


def test_a_mask_never_covers_what_programs_need() -> None:
    """The system, the interpreter and its site-packages stay, whatever a suite names."""
    import sys

    from codetrial.sandbox.bwrap import masked

    needed = ["/", "/usr", "/etc", sys.prefix, sys.base_prefix, *site_dirs(),
              str(Path(site_dirs()[0]).parent)]
    assert masked(needed) == []
    data = str(Path(site_dirs()[0]) / "human_eval" / "data")
    assert masked([data, "/no/such/path"]) == ([data] if Path(data).is_dir() else [])
