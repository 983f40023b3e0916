"""The model's module in a forked subject process, called by value from the judge.

Standalone (stdlib, `codetrial_plain`, `codetrial_audit` and the framing of `codetrial_proxy`):
part of `codetrial_judge`. The subject cannot write the program's result channel (every other
descriptor is closed before its code runs), cannot read the judge's memory (it is not
dumpable), and sends back plain values only. A subject killed by a signal takes the judge down
with the same signal, so the sandbox still tells a CPU-time or memory kill from an error.
"""

from __future__ import annotations

import json
import linecache
import os
import signal
import sys
import traceback
import types

import codetrial_audit as audit
import codetrial_exception_text as exception_text
import codetrial_plain as plain
from codetrial_proxy import ProxyError, recv_frame, send_frame


def load_module(code: str, filename: str = "<solution>") -> dict:
    """Run the model's code as the __main__ module (as `python file.py` would) and return its
    namespace; the worker's directory is importable, as for any program. Its lines are known
    to linecache, so that a traceback shows the line that raised."""
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module = types.ModuleType("__main__")
    sys.modules["__main__"] = module
    exec(compile(code, filename, "exec"), module.__dict__)
    return module.__dict__


def raised(exc: BaseException) -> dict:
    return {"raised": type(exc).__name__, "message": _message(exc)}


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:2000]
    except Exception:  # noqa: BLE001 - str() of a hostile exception may fail
        return ""



class SubjectGone(Exception):
    """The code under test ended (or broke the channel) before it answered."""


def undumpable() -> None:
    """Same-uid processes (the subject) may not ptrace us or open /proc/<us>/mem or /fd."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        pass


def keep_only(fds: tuple[int, ...]) -> None:
    """Close every descriptor but stdout, stderr and `fds`; stdin becomes /dev/null."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    keep = sorted({0, 1, 2, *fds})
    for low, high in zip(keep, [*keep[1:], 1 << 20], strict=True):
        os.closerange(low + 1, high)


def die_like(pid: int) -> int:
    """Reap the subject; if a signal killed it, let the same signal kill us. Else its status."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return -1
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    return os.waitstatus_to_exitcode(status)


def fork_subject(body, *args: object) -> tuple[int, int, int]:
    """Fork a subject that runs body(to_judge, from_judge, *args) and exits.

    Returns (pid, read end from the subject, write end to the subject).
    """
    to_subject_r, to_subject_w = os.pipe()
    from_subject_r, from_subject_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid == 0:
        try:
            keep_only((to_subject_r, from_subject_w))
            body(from_subject_w, to_subject_r, *args)
        except BaseException:
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
            os._exit(0)
    os.close(to_subject_r)
    os.close(from_subject_w)
    return pid, from_subject_r, to_subject_w


def _serve(out: int, inp: int, code: str) -> None:
    """In the subject: run the model's module, then answer the judge about its names. Every
    reply carries what the code tried since the last one."""
    recorder = audit.install(os.getcwd(), [], watch_modules=False)

    def send(reply: dict) -> None:
        tried = recorder.drain()
        send_frame(out, json.dumps({**reply, "tried": tried} if tried else reply).encode())

    try:
        namespace = load_module(code)
    except BaseException as exc:
        with recorder.paused():
            exception_text.print_exception(exc)
        send(raised(exc))
        return
    send({"ready": True})
    while (frame := recv_frame(inp)) is not None:
        request = json.loads(frame)
        try:
            reply = _answer(namespace, request["name"], request.get("call"))
        except BaseException as exc:
            with recorder.paused():
                exception_text.print_exception(exc)
            reply = raised(exc)
        send(reply)


def _answer(namespace: dict, name: str, call: object) -> dict:
    """A call's result, or what a name is: a function, or data (as a plain value)."""
    if name not in namespace:
        return {"missing": True}
    value = namespace[name]
    if call is not None:
        args, kwargs = plain.decode(call)
        result = plain.encode(value(*args, **kwargs))
        return {"value": result, "after": plain.encode((args, kwargs))}
    if callable(value):
        return {"callable": True}
    return {"value": plain.encode(value)}


def _update_in_place(pairs: list) -> None:
    """What a call did to its list, dict and set arguments, (argument, after) pairs, done to the
    caller's objects."""
    for argument, new in pairs:
        kind = type(argument)
        if kind is not type(new) or kind not in (list, dict, set):
            continue
        argument.clear()
        if kind is list:
            argument.extend(new)
        else:
            argument.update(new)


class Subject:
    """The model's module in its own process; the judge reads its names and calls its
    functions, by value."""

    def __init__(self, code: str, entry: str = "") -> None:
        self.entry = entry
        self.pid, self._in, self._out = fork_subject(_serve, code)
        self._ready = False
        self.tried: dict[str, None] = {}  # what the subject says its code tried

    def _receive(self) -> dict:
        try:
            frame = recv_frame(self._in)
        except ProxyError as exc:  # an oversized frame
            raise SubjectGone(f"the code under test broke the channel: {exc}") from None
        if frame is None:
            status = die_like(self.pid)
            raise SubjectGone(f"the code under test exited (status {status}) before it answered")
        try:
            message = json.loads(frame)
            if type(message) is not dict:
                raise TypeError("not an object")
            self._note(message.get("tried"))
            decoded = {key: plain.decode(message[key]) for key in ("value", "after")
                       if key in message}
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            raise SubjectGone(f"the code under test broke the channel: {exc}") from None
        if "raised" in message:
            name, text = str(message["raised"]), str(message.get("message", ""))
            if name in ("StopIteration", "StopAsyncIteration"):  # would end the test's loop
                raise RuntimeError(f"the code under test raised {name}: {text}")
            raise plain.exception_named(name, text)
        return decoded if "value" in message else message

    def _note(self, items: object) -> None:
        for item in items if type(items) is list else []:
            if len(self.tried) < audit.MAX_ITEMS:
                self.tried.setdefault(str(item)[:audit.MAX_TEXT], None)

    def ready(self) -> None:
        """Wait for the module to load; raises what loading it raised."""
        if not self._ready:
            self._receive()
            self._ready = True

    def ask(self, name: str, call: tuple | None = None) -> dict:
        """What `name` is in the model's module, or (with `call`: args, kwargs) what calling it
        returns; a name it lacks raises NameError."""
        self.ready()
        request = {"name": name}
        if call is not None:
            request["call"] = plain.encode(call)
        try:
            send_frame(self._out, json.dumps(request).encode())
        except BrokenPipeError:
            self._receive()  # says how the subject ended
            raise
        message = self._receive()
        if message.get("missing") is True:
            raise NameError(f"name {name!r} is not defined")
        return message

    def call(self, *args: object, **kwargs: object) -> object:
        return self.call_named(self.entry, *args, **kwargs)

    def call_named(self, name: str, /, *args: object, **kwargs: object) -> object:
        """Call by value; a list, dict or set argument the call changed is changed here too."""
        message = self.ask(name, (args, kwargs))
        if "value" not in message:
            raise SubjectGone("the code under test answered out of turn")
        after = message.get("after")
        if type(after) is tuple and len(after) == 2 and type(after[0]) is tuple and type(
                after[1]) is dict:
            given = [*zip(args, after[0], strict=False)]
            _update_in_place(given + [(v, after[1].get(k)) for k, v in kwargs.items()])
        return message["value"]

    def close(self) -> None:
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
