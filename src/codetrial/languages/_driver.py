"""Runs one exercise's build and test steps inside the sandbox and reports what each printed.

Standalone (stdlib only): the sandbox runs it as `python3 -I -S _driver.py` with its plan on
stdin. It reads the report nonce first and no step inherits the nonce or report fds, so the
model's code, which runs in the steps, cannot write the report; what the steps print is parsed
by the harness; the driver makes itself non-dumpable, so the steps cannot read its memory or
fds through ptrace or /proc either. A `remove` step deletes files before the next one runs:
tests are compiled, then their sources removed, then the test binary runs without them.
"""

import ctypes
import glob
import json
import os
import shutil
import subprocess
import sys

OUTPUT_CAP = 200_000  # characters kept of one step's output (its end)
FILE_CAP = 4_000_000


def _tail(data: bytes, cap: int) -> str:
    text = data.decode("utf-8", "replace")
    return text if len(text) <= cap else "...\n" + text[-cap:]


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.unlink(path)


def _here(text: str) -> str:
    """Paths in a plan are relative to the exercise; `{wd}` names it where a tool needs an
    absolute path (GOCACHE, CARGO_HOME)."""
    return text.replace("{wd}", os.getcwd())


def _env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODETRIAL_")}
    env.update({k: _here(v) for k, v in extra.items()})
    return env


def _run(argv: list, env: dict) -> dict:
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env, check=False)
    except OSError as exc:
        return {"exit": 127, "output": f"cannot run {argv[0]}: {exc}"}
    return {"exit": done.returncode, "output": _tail(done.stdout, OUTPUT_CAP)}


def _step(step: dict) -> list:
    for path in step.get("remove", ()):
        _remove(path)
    for path in step.get("mkdir", ()):
        os.makedirs(path, exist_ok=True)
    if "copy" in step:
        source, target = step["copy"]
        if os.path.isdir(source):
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    if "symlink" in step:
        os.symlink(*step["symlink"])
    if "argv" not in step:
        return []
    env = _env(step.get("env", {}))
    argv = [_here(a) for a in step["argv"]]
    if "each" not in step:
        return [{"name": step["name"], **_run(argv, env)}]
    found = sorted(p for p in glob.glob(step["each"])
                   if os.path.isfile(p) and os.access(p, os.X_OK))
    return [{"name": f"{step['name']}:{os.path.basename(p)}",
             **_run([a.replace("{}", p) for a in argv], env)} for p in found]


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return _tail(fh.read(FILE_CAP + 1), FILE_CAP)
    except OSError:
        return None


def _not_dumpable() -> None:
    """Steps run as our uid: without this they could ptrace us, read our memory (the nonce) or
    open our report fd through /proc."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


def main() -> None:
    _not_dumpable()
    with os.fdopen(int(os.environ["CODETRIAL_NONCE_FD"]), "rb") as fh:
        nonce = fh.read().strip().decode()
    report = os.fdopen(int(os.environ["CODETRIAL_REPORT_FD"]), "w")
    plan = json.load(sys.stdin)
    results = []
    for step in plan["steps"]:
        ran = _step(step)
        results += ran
        if step.get("required") and any(r["exit"] != 0 for r in ran):
            break
    files = {path: _read(path) for pattern in plan.get("collect", ())
             for path in sorted(glob.glob(pattern))}
    report.write(nonce + " " + json.dumps({"steps": results, "files": files}) + "\n")
    report.close()


if __name__ == "__main__":
    main()
