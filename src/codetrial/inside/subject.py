"""The subject: a fresh interpreter where the model's code runs, apart from its tests.

Standalone (stdlib, `codetrial_frames`, `codetrial_proxy`, `codetrial_audit`): the tests'
process starts it with `start` (a new `python -I -S`, not a fork, so no memory of the tests'
process comes along), in a directory that holds only the solution and the files that are not
tests, with a clean environment and no descriptors but its two pipes and stdout/stderr. It
imports the model's modules when the tests ask, and answers requests about their objects until
the pipes close.
"""

from __future__ import annotations

import functools
import json
import json.decoder
import json.encoder
import os
import sys

import codetrial_audit as audit
import codetrial_proxy as proxy

BOOT = """import sys, json, marshal
cfg = json.loads(sys.argv[1])
for name, (path, code) in marshal.loads(sys.stdin.buffer.read()).items():
    module = type(sys)(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(code, module.__dict__)
sys.modules["codetrial_subject"].main(cfg)
"""
MODULES = ("codetrial_frames", "codetrial_handles", "codetrial_conversions", "codetrial_tracebacks",
           "codetrial_values", "codetrial_proxy", "codetrial_audit", "codetrial_subject")


@functools.cache
def compiled() -> bytes:
    """Our modules' code, to hand to each subject so that none compiles them (tens of ms each):
    built once in the worker (codetrial_unittest calls this when it is loaded, before programs
    are forked), from their pycs when the worker has them."""
    import marshal

    codes = {}
    for name in MODULES:
        module = sys.modules[name]
        code = module.__spec__.loader.get_code(name) if module.__spec__ else None
        if code is None:
            with open(module.__file__, encoding="utf-8") as fh:
                code = compile(fh.read(), module.__file__, "exec", dont_inherit=True)
        codes[name] = (module.__file__, code)
    return marshal.dumps(codes)



def start(workdir: str, tests: list[str]) -> tuple[int, int, int]:
    """Start a subject in `workdir`; (pid, fd to read its messages, fd to write to it)."""
    code_r, code_w = os.pipe()
    to_subject_r, to_subject_w = os.pipe()
    from_subject_r, from_subject_w = os.pipe()
    config = {"inp": 3, "out": 4, "workdir": workdir, "tests": tests,
              "path": [p for p in sys.path if p and os.path.isabs(p) and p != workdir]}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "TMPDIR": workdir,
           "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}
    actions = [(os.POSIX_SPAWN_DUP2, code_r, 0), (os.POSIX_SPAWN_DUP2, to_subject_r, 3),
               (os.POSIX_SPAWN_DUP2, from_subject_w, 4)]
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    argv = [sys.executable, "-I", "-S", "-X", "utf8", "-c", BOOT, json.dumps(config)]
    try:
        pid, code = os.posix_spawn(sys.executable, argv, env, file_actions=actions), compiled()
    except PermissionError:  # the weak process mode: Python under a home the uid cannot enter
        pid, code = _fork(config, env, (code_r, to_subject_r, from_subject_w)), b""
    for fd in (code_r, to_subject_r, from_subject_w):
        os.close(fd)
    with open(code_w, "wb") as pipe:  # the subject reads it all, then stdin is at its end
        pipe.write(code)
    return pid, from_subject_r, to_subject_w


def _fork(config: dict, env: dict, fds: tuple[int, int, int]) -> int:
    """A forked subject, where no new interpreter can be started (process mode, which says it
    is weak): the same descriptors and environment, but this process's memory comes along."""
    pid = os.fork()
    if pid == 0:
        try:
            for fd, number in zip(fds, (0, 3, 4), strict=True):
                os.dup2(fd, number)
            os.closerange(5, 1 << 16)
            os.environ.clear()
            os.environ.update(env)
            main(config)
        finally:
            os._exit(0)
    return pid


def main(config: dict) -> None:
    """In the subject: record what is tried, then answer until the tests' process is done."""
    workdir = config["workdir"]
    os.chdir(workdir)
    sys.path[:] = [workdir, *config["path"]]
    sys.dont_write_bytecode = True
    ours = tuple(sys.modules[name].__file__ for name in MODULES) + ("<string>",)
    for name in ("json", "json.encoder", "json.decoder", "base64", "importlib._bootstrap",
                 "importlib._bootstrap_external"):  # what the channel runs on
        if name in sys.modules:
            proxy.pin_builtins(vars(sys.modules[name]))
    recorder = audit.install(workdir, list(config["tests"]))
    try:
        Served(config["inp"], config["out"], recorder, ours).serve()
    except BaseException:  # noqa: BLE001 - a fault of ours: say where, for the output
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001, S110
                pass
        os._exit(0)


class Served(proxy.Connection):
    """The subject's end: each reply carries what was newly tried; each exception, and each
    call back into the tests, the model's frames."""

    def __init__(self, inp: int, out: int, recorder: audit.Recorder, ours: tuple) -> None:
        super().__init__(inp, out, guarded=False, name="the tests' process")
        self.recorder, self.ours = recorder, ours
        self.extra = self._tried
        self.frames_of = self._frames_of
        self.stack_of = self._stack

    def handle(self, message: dict) -> dict:
        try:
            return super().handle(message)
        finally:
            self.recorder.check_modules()

    def _tried(self) -> dict:
        items = self.recorder.drain()
        return {"tried": items} if items else {}

    def _frames_of(self, exc: BaseException) -> list:
        with self.recorder.paused():
            return proxy.frame_list(exc.__traceback__, self.ours)

    def _stack(self) -> list:
        with self.recorder.paused():
            return proxy.stack_list(sys._getframe(1), self.ours)



proxy.pin_builtins(globals())
