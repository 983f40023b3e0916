"""Reading tool calls: text written by small models, arguments checked before anything runs,
paths kept inside the workspace, commands that reach for what they must not named."""

from __future__ import annotations

from codetrial.agent.textcalls import parse
from codetrial.agent.tools import checked, workspace_path, write_file
from codetrial.agent.tried import command_tried, path_tried


def test_text_calls_in_the_shapes_small_models_write():
    text = ('I will look.\n<tool_call>{"name": "run", "arguments": {"command": "ls"}}'
            '</tool_call>\n<tool_call>{"tool": "read_file", "args": "{\\"path\\": \\"a.py\\"}"}')
    calls = parse(text, 1)
    assert [(c.name, c.arguments, c.problem) for c in calls] == [
        ("run", {"command": "ls"}, ""), ("read_file", {"path": "a.py"}, "")]
    fenced = parse('```json\n{"function": "submit", "parameters": {}}\n```', 2)
    assert [(c.name, c.problem) for c in fenced] == [("submit", "")]
    bare = parse('Sure: {"name": "list_files", "arguments": {"path": "."}} and done', 3)
    assert [c.name for c in bare] == ["list_files"]
    assert parse("Nothing to call here.", 4) == []
    openai_shaped = parse('<tool_call>{"type": "function", "function": {"name": "run", '
                          '"arguments": "{\\"command\\": \\"ls\\"}"}}</tool_call>', 5)
    assert [(c.name, c.arguments) for c in openai_shaped] == [("run", {"command": "ls"})]


def test_malformed_calls_say_what_to_fix():
    assert checked("rm", {}).problem.startswith("there is no tool 'rm'")
    assert checked("run", {"cmd": "ls"}).problem == "run needs the string argument(s) command"
    assert checked("run", "[1]").problem == "the arguments must be a JSON object"
    assert "not JSON" in checked("run", "{oops").problem
    assert parse('<tool_call>{"arguments": {}}</tool_call>', 5)[0].problem == (
        'the call names no tool ("name")')


def test_paths_stay_in_the_workspace():
    assert workspace_path("src/../a.py") == "a.py"
    assert workspace_path("/tmp/w/run/src/lib.rs") == "src/lib.rs"
    assert workspace_path("./") == "."
    for outside in ("/etc/passwd", "../x", "src/../../x", "/tmp/w/runx"):
        assert workspace_path(outside) is None, outside


def test_what_commands_reach_for_is_named():
    hidden = ["leap_test.py"]
    assert command_tried("python3 -m py_compile leap.py && ls -la", hidden) == []
    assert command_tried("g++ -I/usr/include -o a a.cpp", hidden) == []
    kinds = {t.split(":")[0] for t in command_tried(
        "find / -name '*_test.py'; cat ../leap_test.py; curl x; kill -9 1; cat /proc/1/environ",
        hidden)}
    assert kinds == {"searched the whole file system", "reached outside the workspace",
                     "looked for the tests or an answer key", "used the network",
                     "sent signals"}
    assert path_tried("read_file", "leap.py", False, hidden) == []
    assert [t.split(":")[0] for t in path_tried("read_file", "/x/.meta/example.py", True,
                                                hidden)] == [
        "reached outside the workspace", "looked for the tests or an answer key"]


def test_what_would_break_the_workspace_or_the_store_is_a_malformed_call():
    deep = '{"command": ' + "[" * 100_000
    assert "nested too deep" in checked("run", deep).problem
    assert parse('<tool_call>{"name": "run", "arguments": ' + "[" * 5_000, 1)[0].problem
    assert "not UTF-8" in checked("write_file", {"path": "a.py", "content": "x = '\ud800'"}).problem
    assert "NUL" in checked("read_file", {"path": "a\0b"}).problem
    files = {"bob.cpp": "int f();\n", "src/lib.rs": ""}
    assert write_file(files, "bob.cpp/x.cpp", "")[0] == "error: bob.cpp is a file, not a folder"
    assert write_file(files, "src", "")[0] == "error: src is a folder"
    assert write_file(files, "x" * 256, "")[0].startswith("error: a part of that path")
    assert set(files) == {"bob.cpp", "src/lib.rs"}
