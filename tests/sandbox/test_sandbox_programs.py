"""What a program gets back: output, results, reports, statuses; the pool and the modes."""

from __future__ import annotations

import asyncio
import subprocess
import textwrap
import time

import pytest

from codetrial.sandbox import Limits, Program, Sandbox, detect_mode


def code(source: str) -> Program:
    return Program(code=textwrap.dedent(source))


def test_simple_program_is_ok_with_its_stdout(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("print('hello from the sandbox')"))
    assert out.status == "ok", out
    assert out.stdout == "hello from the sandbox\n"
    assert out.exit_code == 0 and out.signal is None and out.report is None
    assert 0 < out.wall_seconds < 1


def test_exception_is_an_error_with_the_programs_traceback(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("""
        def check(x):
            assert x == 2, "expected 2"
        check(3)
    """))
    assert out.status == "error"
    assert out.detail == "raised AssertionError"
    assert "Traceback (most recent call last)" in out.stderr
    assert 'File "<program>", line 3, in check' in out.stderr
    assert 'assert x == 2, "expected 2"' in out.stderr  # the source line, not just a number
    assert "codetrial_" not in out.stderr and "worker.py" not in out.stderr  # none of ours
    assert out.stderr.rstrip().endswith("AssertionError: expected 2")


def test_syntax_error_is_an_error(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("def broken(:\n    pass"))
    assert out.status == "error" and "SyntaxError" in out.stderr


def test_results_round_trip(sandbox: Sandbox) -> None:
    value = {"passed": [1, 2], "failed": {"t3": "AssertionError"}, "ratio": 0.5, "none": None,
             "text": "ünïcode ✓"}
    out = sandbox.run_sync(code(f"__results__ = {value!r}"))
    assert out.status == "ok" and out.report == value


def test_the_program_is_the_main_module(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("""
        import pickle, sys, unittest
        class Point:
            pass
        class Checks(unittest.TestCase):
            def test_one(self):
                self.assertEqual(1 + 1, 2)
        result = unittest.main(exit=False, argv=["prog"]).result
        __results__ = [result.testsRun, type(pickle.loads(pickle.dumps(Point()))).__name__,
                       sys.modules["__main__"].Point is Point]
    """))
    assert out.status == "ok", out.stderr
    assert out.report == [1, "Point", True]


def test_results_that_are_not_json_make_an_error(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("__results__ = {1, 2}"))
    assert out.status == "error" and "not JSON-serializable" in out.detail


def test_files_stdin_and_env_reach_the_program(sandbox: Sandbox) -> None:
    program = Program(
        code=textwrap.dedent("""
            import os, sys
            from helper import greet
            __results__ = {
                "greet": greet(sys.stdin.read()),
                "bytes": list(open("data/blob.bin", "rb").read()),
                "env": os.environ["SUITE_SETTING"],
                "cwd_is_home": os.getcwd() == os.environ["HOME"],
            }
        """),
        files={"helper.py": "def greet(n):\n    return 'hi ' + n\n", "data/blob.bin": b"\0\xff"},
        env={"SUITE_SETTING": "on"},
        stdin="world",
    )
    out = sandbox.run_sync(program)
    assert out.status == "ok", out.stderr
    assert out.report == {"greet": "hi world", "bytes": [0, 255], "env": "on", "cwd_is_home": True}


def test_one_programs_environment_never_reaches_the_next(sandbox: Sandbox) -> None:
    """The worker keeps every program's base environment and a child adds a request's own:
    neither that nor what a program sets itself survives into another program."""
    first = Program(code=textwrap.dedent("""
        import os
        os.environ["LEFT_BY_FIRST"] = "x"
        __results__ = sorted(os.environ)
    """), env={"SUITE_SETTING": "on"})
    later = Program(code="import os\n__results__ = sorted(os.environ)")
    seen = [sandbox.run_sync(p).report for p in (first, later, later, later)]
    assert "SUITE_SETTING" in seen[0]
    for keys in seen[1:]:
        assert "SUITE_SETTING" not in keys and "LEFT_BY_FIRST" not in keys
        assert {"PATH", "HOME", "TMPDIR", "LANG"} <= set(keys)


def test_threads_are_joined_though_workers_do_not_preload_threading(bubblewrap: None) -> None:
    """A judge-only sandbox (HumanEval's) does not load threading for its programs (its
    after-fork handler would run in every child): a program that starts a thread imports it,
    and its non-daemon threads finish before the end."""
    with Sandbox(workers=1, preload=()) as judges_only:
        bare = judges_only.run_sync(code('import sys\n__results__ = "threading" in sys.modules'))
        threaded = judges_only.run_sync(code("""
        import threading, time
        def late():
            time.sleep(0.2)
            print("from the thread")
        threading.Thread(target=late).start()
        __results__ = "started"
    """))
    assert bare.status == "ok" and bare.report is False
    assert threaded.status == "ok", threaded.stderr
    assert threaded.stdout == "from the thread\n" and threaded.report == "started"


def test_big_stdin_is_fed_while_the_program_reads(sandbox: Sandbox) -> None:
    data = "x" * 3_000_000
    out = sandbox.run_sync(Program(code="import sys\n__results__ = len(sys.stdin.read())",
                                   stdin=data))
    assert out.status == "ok" and out.report == len(data)


def test_a_program_that_closes_its_output_early_is_still_watched_to_its_end(
        sandbox: Sandbox) -> None:
    """The worker first waits for the output pipes to hang up (most programs: their exit); a
    program that closes them and goes on is waited for, and kept to its limit, all the same."""
    closes = code("""
        import os, sys, time
        print('before', flush=True)
        os.close(1)
        os.close(2)
        time.sleep(0.3)
        __results__ = 'after'
    """)
    out = sandbox.run_sync(closes)
    assert (out.status, out.report, out.stdout) == ("ok", "after", "before\n")
    assert out.wall_seconds >= 0.3
    hangs = code("import os, time\nos.close(1)\nos.close(2)\ntime.sleep(60)\n")
    out = sandbox.run_sync(hangs, Limits(wall_seconds=1, cpu_seconds=5))
    assert out.status == "timeout" and out.wall_seconds < 5


def test_a_file_name_outside_the_workdir_is_refused(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(Program(code="pass", files={"../escape.py": "x"}))
    assert out.status == "error" and "invalid file name" in out.detail


@pytest.mark.parametrize("ending", ["import os\nos._exit(0)", "import sys\nsys.exit(0)",
                                    "raise SystemExit", "import os\nos.kill(os.getpid(), 9)"])
def test_exiting_before_the_end_is_never_ok(sandbox: Sandbox, ending: str) -> None:
    out = sandbox.run_sync(code(ending + "\n__results__ = 'unreachable'"))
    assert out.status == "error", out
    assert out.report is None


REPORTER = """
import json, os
nonce = os.read(int(os.environ["CODETRIAL_NONCE_FD"]), 100).decode().strip()
report = int(os.environ["CODETRIAL_REPORT_FD"])
os.write(report, f"{nonce} {json.dumps({'test': 'a', 'passed': True})}\\n".encode())
os.write(report, b"0123456789abcdef0123456789abcdef {\\"test\\": \\"forged\\"}\\n")
os.write(report, b"no nonce at all\\n")
print("reported")
"""


def test_argv_program_reports_through_the_nonce_checked_fd(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(Program(argv=("python3", "reporter.py"),
                                   files={"reporter.py": REPORTER}))
    assert out.status == "ok", out
    assert out.stdout == "reported\n"
    assert out.report == [{"test": "a", "passed": True}]
    assert "dropped 2 report line(s)" in out.detail


def test_argv_report_with_a_wrong_nonce_is_dropped(sandbox: Sandbox) -> None:
    forger = """
import os
os.read(int(os.environ["CODETRIAL_NONCE_FD"]), 100)
os.write(int(os.environ["CODETRIAL_REPORT_FD"]), b"deadbeef {\\"passed\\": true}\\n")
"""
    out = sandbox.run_sync(Program(argv=("python3", "-c", forger)))
    assert out.status == "ok" and out.report == []
    assert "dropped 1 report line(s)" in out.detail


@pytest.mark.parametrize("forged", ['"\\u00e9" * 32', '[[[[[[[[]]]]]]]]', "None", "10 ** 40"])
def test_a_result_with_a_nonce_of_any_kind_is_ignored_not_a_sandbox_error(
        sandbox: Sandbox, forged: str) -> None:
    """A program may write anything on its result fd (3): a wrong nonce of any type is one
    more message without the nonce, never a failure of the worker (an infra error is left
    out of the pass rate, so a failing program could leave the count that way)."""
    forger = f"""
import json, os
os.write(3, (json.dumps({{"nonce": {forged}, "pid": os.getpid(), "completed": True,
                          "results": "forged"}}) + "\\n").encode())
raise SystemExit(3)
"""
    out = sandbox.run_sync(code(forger))
    assert (out.status, out.exit_code, out.report) == ("error", 3, None), out


def test_argv_exit_status_and_missing_command(sandbox: Sandbox) -> None:
    failed = sandbox.run_sync(Program(argv=("sh", "-c", "echo oops >&2; exit 3")))
    assert (failed.status, failed.exit_code, failed.stderr) == ("error", 3, "oops\n")
    missing = sandbox.run_sync(Program(argv=("no-such-command-here",)))
    assert missing.status == "sandbox_error" and "cannot run" in missing.detail


def test_twenty_programs_through_two_workers(sandbox: Sandbox) -> None:
    async def many() -> list:
        programs = [code(f"import time\ntime.sleep(0.05)\n__results__ = {i}") for i in range(20)]
        return await asyncio.gather(*(sandbox.run(p) for p in programs))

    restarts, started = sandbox.restarts, time.monotonic()
    outcomes = asyncio.run(many())
    assert [o.status for o in outcomes] == ["ok"] * 20
    assert [o.report for o in outcomes] == list(range(20))
    assert time.monotonic() - started < 5  # 20 x 50 ms over 2 workers, plus overhead
    assert sandbox.restarts == restarts


def test_detect_mode_prefers_bubblewrap(bubblewrap: None, monkeypatch: pytest.MonkeyPatch) -> None:
    mode, reason = detect_mode()
    assert mode == "bubblewrap" and "no network" in reason
    monkeypatch.setenv("CODETRIAL_SANDBOX", "process")
    mode, reason = detect_mode()
    assert mode == "process" and "CODETRIAL_SANDBOX=process" in reason


def test_the_bubblewrap_mode_says_which_bwrap_it_found(sandbox: Sandbox) -> None:
    version = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout
    assert sandbox.mode == "bubblewrap"
    assert sandbox.mode_reason.startswith(f"{version.strip()}: no network;")


def test_process_mode_runs_a_program_and_says_it_is_weaker(leftovers) -> None:
    with Sandbox(workers=1, mode="process") as sb:
        assert sb.mode == "process"
        assert "host's network" in sb.mode_reason
        out = sb.run_sync(code("import os\nprint('weak')\n__results__ = os.getuid()"),
                          Limits(wall_seconds=5))
        assert out.status == "ok" and out.stdout == "weak\n"
        assert out.report == (sb.uids[0] if sb.uids else out.report)
        leak = sb.run_sync(code("open('/tmp/codetrial-process-mode-leak', 'w').write('x')"))
        assert leak.status == "ok"
        assert leftovers(sb) == []


def test_async_context_manager_and_closing(bubblewrap: None) -> None:
    async def use() -> Sandbox:
        async with Sandbox(workers=1, mode="bubblewrap") as sb:
            out = await sb.run(code("print('async')"))
            assert out.status == "ok" and out.stdout == "async\n"
        return sb

    sb = asyncio.run(use())
    assert sb.worker_pids == []
    with pytest.raises(RuntimeError, match="closed"):
        sb.run_sync(code("pass"))


def test_a_suites_modules_are_imported_once_per_worker(bubblewrap) -> None:
    """The jsonschema suite's contenders import jsonschema in every program: its workers have
    it already, so a program pays nothing for the import."""
    from codetrial.suites import create_suite

    probe = code("import sys\n__results__ = 'jsonschema' in sys.modules\n")
    preload = create_suite("jsonschema", {}).preload
    with Sandbox(workers=1, preload=preload) as warm, Sandbox(workers=1) as plain:
        assert warm.run_sync(probe).report is True
        assert plain.run_sync(probe).report is False
