"""An attempt stores the request as sent to the model: its own copy, without the reference
reply and without empty fields."""

from __future__ import annotations

from codetrial.models.base import Reply, Request, Usage
from codetrial.protocols.base import attempt_from_reply


def test_the_stored_request_is_a_copy_without_the_reference():
    request = Request(kind="chat", messages=[{"role": "user", "content": "write f"}],
                      stop=["\ndef "], tools=[{"name": "write_file", "parameters": {}}],
                      reference=Reply(text="def f(): pass"))
    reply = Reply(text="def f():\n    return 1\n", usage=Usage(3, 5))
    attempt = attempt_from_reply(1, request, reply)
    assert attempt.request == {"kind": "chat", "messages": [{"role": "user", "content": "write f"}],
                               "tools": [{"name": "write_file", "parameters": {}}],
                               "max_tokens": 4096,
                               "stop": ["\ndef "], "sample_index": 0}
    attempt.request["stop"].append("\nclass ")
    attempt.request["messages"][0]["content"] = "changed"
    attempt.request["tools"][0]["parameters"]["x"] = 1
    assert request.stop == ["\ndef "]
    assert request.messages == [{"role": "user", "content": "write f"}]
    assert request.tools == [{"name": "write_file", "parameters": {}}]
    assert (attempt.reply, attempt.prompt_tokens, attempt.completion_tokens) == (reply.text, 3, 5)
