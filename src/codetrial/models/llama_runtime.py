"""The harness's handle on the llama.cpp runtime, which runs in a child process (_llama_child.py).

llama.cpp is native code: a build that uses an instruction this CPU lacks dies with SIGILL, a bug
with SIGSEGV, a big model under the OOM killer. In a child process such a death is one clear error
(before a run: a usage error; during a run: that sample's infra error, retried on resume), and the
next request starts a fresh runtime, instead of a dead harness and a half-written run.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from codetrial.core.errors import InfraError
from codetrial.inside.frames import HEADER, frame

CHILD = Path(__file__).with_name("_llama_child.py")
MAX_RESTARTS = 3
_HINTS = {
    signal.SIGILL: "an instruction this CPU does not support: rebuild llama-cpp-python portably "
                   "with `bash scripts/build_llama.sh`",
    signal.SIGKILL: "killed from outside (out of memory, or by another process)",
    signal.SIGSEGV: "a crash inside llama.cpp",
    signal.SIGBUS: "a crash inside llama.cpp",
}


class RuntimeDied(InfraError):
    """The runtime process ended while the harness needed it."""


class RuntimeRefused(Exception):
    """The runtime started but could not load the model (the file is not one it can read)."""


def _frame(message: dict) -> bytes:
    return frame(json.dumps(message).encode())


def how_it_ended(returncode: int | None) -> str:
    if returncode is None:
        return "closed its channel"
    if returncode < 0:
        sig = signal.Signals(-returncode)
        hint = _HINTS.get(sig)
        return f"was killed by {sig.name}" + (f" ({hint})" if hint else "")
    return f"exited with status {returncode}"


class LlamaRuntime:
    """One llama.cpp model in one child process; requests go one at a time (a llama.cpp context
    is not thread-safe), from any thread or event loop."""

    def __init__(self, path: Path, n_ctx: int) -> None:
        self.path, self.n_ctx = path, n_ctx
        self.system_info = ""
        self.crashes = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the child and wait until the model is loaded. Raises RuntimeDied if it dies,
        RuntimeRefused if llama.cpp cannot load the file."""
        with self._lock:
            self._ensure_started()

    def request(self, message: dict) -> dict:
        """Send one request, return the answer; a dead runtime raises RuntimeDied (and the next
        request starts a new one, MAX_RESTARTS times at most)."""
        with self._lock:
            self._ensure_started()
            try:
                self._proc.stdin.write(_frame(message))
                self._proc.stdin.flush()
            except OSError:
                pass  # it died: reading says how
            return self._receive("during a request")

    def _ensure_started(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        if self.crashes > MAX_RESTARTS:
            raise RuntimeDied(f"the embedded model's runtime died {self.crashes} times; "
                              "not restarted again")
        self._spawn()
        ready = self._receive("while loading the model")
        if "ready" not in ready:
            self._discard()
            raise RuntimeRefused(ready.get("error", "unknown error"))
        self.system_info = ready.get("system_info", "")

    def _spawn(self) -> None:
        self._log = tempfile.TemporaryFile()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODETRIAL_")}
        self._proc = subprocess.Popen(
            [sys.executable, "-P", str(CHILD), str(self.path), str(self.n_ctx)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, env=env,
            close_fds=True, start_new_session=True,
        )

    def _receive(self, when: str) -> dict:
        assert self._proc is not None and self._proc.stdout is not None
        head = self._proc.stdout.read(HEADER.size)
        whole = len(head) == HEADER.size
        body = self._proc.stdout.read(HEADER.unpack(head)[0]) if whole else b""
        if whole and body:
            return json.loads(body)
        pid, code = self._proc.pid, self._wait()
        self.crashes += 1
        tail = self._log_tail()
        self._discard()
        raise RuntimeDied(f"the embedded model's runtime (pid {pid}) {how_it_ended(code)} "
                          f"{when}{tail}")

    def _wait(self) -> int | None:
        try:
            return self._proc.wait(5)
        except subprocess.TimeoutExpired:
            return None

    def _log_tail(self, limit: int = 300) -> str:
        try:
            self._log.seek(0)
            text = self._log.read().decode("utf-8", "replace").strip()[-limit:]
        except (OSError, ValueError, AttributeError):
            return ""
        return f"; its last words: {text}" if text else ""

    def _discard(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout, self._log):
                try:
                    stream.close()
                except (OSError, AttributeError):
                    pass
        self._proc = None

    def close(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                try:
                    self._proc.stdin.close()  # end of input: it frees the model and exits
                    self._proc.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._discard()


_SHARED: dict[tuple[str, int], LlamaRuntime] = {}
_SHARED_LOCK = threading.Lock()


def shared_runtime(path: Path, n_ctx: int) -> LlamaRuntime:
    """One runtime per model file and context size per harness process: loading costs far more
    than a short generation."""
    key = (str(path), n_ctx)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = LlamaRuntime(path, n_ctx)
        return _SHARED[key]


@atexit.register
def _close_shared() -> None:
    while _SHARED:
        _SHARED.popitem()[1].close()


# ---------------------------------------------------------------- does it work here?


@dataclass(frozen=True)
class Probe:
    ok: bool
    detail: str
    features: str = ""  # the CPU features the build uses, as llama.cpp reports them


def cpu_features(system_info: str) -> str:
    """`AVX = 1 | AVX2 = 1 | AVX512 = 0 | ...` -> `AVX AVX2 ...` (those in use)."""
    found = []
    for part in system_info.replace(":", "|").split("|"):
        name, _, value = part.partition("=")
        if value.strip() == "1" and name.strip():
            found.append(name.strip())
    return " ".join(dict.fromkeys(found))


def probe(path: Path, tokens: int = 4) -> Probe:
    """Start a runtime of its own, generate a few tokens greedily, and say how it went."""
    runtime = LlamaRuntime(path, 512)
    start = time.perf_counter()
    try:
        answer = runtime.request({"op": "generate", "kind": "completion",
                                  "prompt": "def add(a, b):",
                                  "params": {"max_tokens": tokens, "temperature": 0.0}})
    except (RuntimeDied, RuntimeRefused) as exc:
        return Probe(False, f"it does not generate: {exc}", cpu_features(runtime.system_info))
    finally:
        runtime.close()
    if "out" not in answer:
        return Probe(False, f"generation failed: {answer.get('error')}",
                     cpu_features(runtime.system_info))
    made = answer["out"].get("usage", {}).get("completion_tokens", 0)
    seconds = time.perf_counter() - start
    return Probe(made > 0, f"generated {made} tokens in a child process ({seconds:.1f} s with "
                 "loading)", cpu_features(runtime.system_info))
