"""The embedded model's runtime: llama.cpp in a process of its own, serving one request at a time.

Run as a script (`python -P _llama_child.py GGUF N_CTX`) by models/llama_runtime.py. It reads
length-prefixed JSON requests (inside/frames.py) on stdin and answers on the descriptor that
was stdout; the real stdout is pointed at stderr first, so that nothing llama.cpp prints can
garble an answer. It ends at the end of its input, which is also what it sees when the harness
dies (no parent-death signal: that fires when the spawning *thread* ends, and requests come
from short-lived threads). A crash here (an instruction the CPU lacks, a segfault, the OOM
killer) ends this process only.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from codetrial.inside.frames import read_message, write_message

LIMIT = 1 << 30  # bytes of one request


def receive(fd: int) -> dict | None:
    return read_message(fd, LIMIT)  # type: ignore[return-value]


def send(fd: int, message: dict) -> None:
    write_message(fd, message)


def load(path: str, n_ctx: int) -> Any:
    from llama_cpp import Llama

    return Llama(model_path=path, n_ctx=n_ctx, verbose=False)


def system_info() -> str:
    import llama_cpp

    info = llama_cpp.llama_print_system_info()
    return (info.decode() if isinstance(info, bytes) else str(info)).strip()


def generate(llama: Any, request: dict) -> dict:
    """One completion from a clean context: reusing the previous prompt's cached tokens would
    evaluate the rest in another batch shape, and greedy text would depend on what came first."""
    llama.reset()
    params = request["params"]
    if request["kind"] == "chat":
        return llama.create_chat_completion(messages=request["messages"], **params)
    return llama.create_completion(prompt=request["prompt"], **params)


def answer(llama: Any, request: dict) -> dict:
    op = request.get("op")
    try:
        if op == "generate":
            start = time.perf_counter()
            out = generate(llama, request)
            return {"out": out, "seconds": time.perf_counter() - start}
        if op == "tokenize":
            tokens = llama.tokenize(request["text"].encode(), add_bos=request.get("add_bos", False),
                                    special=request.get("special", False))
            return {"tokens": list(tokens)}
        return {"error": f"unknown operation {op!r}", "type": "ValueError"}
    except Exception as exc:  # noqa: BLE001 - the harness decides what an error means
        return {"error": str(exc), "type": type(exc).__name__}


def main() -> None:
    answers = os.dup(1)
    os.dup2(2, 1)  # stray prints (llama.cpp's C code included) go to the log, not the channel
    path, n_ctx = sys.argv[1], int(sys.argv[2])
    try:
        llama = load(path, n_ctx)
    except Exception as exc:  # noqa: BLE001 - said to the harness, which names the file
        send(answers, {"error": str(exc) or type(exc).__name__, "type": type(exc).__name__})
        return
    send(answers, {"ready": True, "system_info": system_info()})
    while (request := receive(0)) is not None:
        send(answers, answer(llama, request))
    llama.close()


if __name__ == "__main__":
    main()
