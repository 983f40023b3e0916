"""Hostile model answers, through the chat protocol, the runner, the real sandbox and store.

Every attack is one sample of HumanEval/0, and after each comes an honest sample: each attack
must be contained with the right verdict, the honest samples must all pass, and afterwards no
process, file or descriptor may be left, no secret may have reached the store, and nothing
outside the sandbox may have been touched.
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

import pytest

from codetrial.suites import create_suite
from tests.hardening.conftest import children, fenced, leftovers, open_fds, run_scripted
from tests.hardening.hostile import ATTACKS, VERDICTS

SECRET = f"sk-hardening-{uuid.uuid4().hex}"
TASK = "HumanEval/0"


@pytest.fixture
def listeners():
    """A TCP and a UDP socket on the host's loopback that no program may reach."""
    tcp, udp = socket.socket(), socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp.bind(("127.0.0.1", 0))
    for sock in (tcp, udp):
        sock.setblocking(False)
    yield tcp, udp
    tcp.close()
    udp.close()


@pytest.fixture
def harness_files(tmp_path: Path) -> dict[str, list[str]]:
    """Files of the harness that programs must neither read, write nor delete."""
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "id_rsa").write_text(f"PRIVATE KEY {SECRET}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me")
    name = f"codetrial-hostile-{uuid.uuid4().hex}"
    return {
        "secret_paths": [str(secrets / "id_rsa")],
        "outside_files": [f"/tmp/{name}", str(outside / "new.txt"), f"/root/{name}",
                          str(Path.cwd() / name)],
        "delete_targets": [str(outside), str(secrets)],
    }


def honest_reply() -> str:
    suite = create_suite("humaneval", {})
    [task] = [t for t in suite.load_tasks() if t.id == TASK]
    return fenced(suite.reference_code(task))


def test_hostile_answers_are_contained(tmp_path, monkeypatch, bubblewrap, listeners,
                                       harness_files):
    tcp, udp = listeners
    store_path = tmp_path / "store" / "runs.sqlite"
    fields = {**harness_files, "tcp_port": tcp.getsockname()[1],
              "udp_port": udp.getsockname()[1], "harness_pid": os.getpid()}
    fields["secret_paths"] = fields["secret_paths"] + [str(store_path)]
    names = list(ATTACKS)
    programs = [ATTACKS[name].format(**fields) for name in names]
    honest = honest_reply()
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # the harness holds a key the programs must miss
    fds_before, children_before = open_fds(), children()

    def answer(request) -> str:  # even samples attack, odd ones are honest
        index = request.sample_index
        return fenced(programs[index // 2]) if index % 2 == 0 else honest

    run = run_scripted(store_path, "humaneval", answer, task_ids=[TASK],
                       samples=2 * len(names), protocol="chat",
                       options={"test_timeout": "2"}, monkeypatch=monkeypatch)
    samples = run.by_index()
    got = {name: samples[2 * i].verdict.value for i, name in enumerate(names)}
    table = "\n".join(f"  {name:40} {got[name]}" for name in names)
    print(f"\nhostile answers ({len(names)}):\n{table}")

    wrong = {n: got[n] for n in names if got[n] not in VERDICTS[n]}
    assert not wrong, f"unexpected verdicts: {wrong}\n{table}"
    assert [samples[i].verdict.value for i in range(1, 2 * len(names), 2)] == (
        ["passed"] * len(names))  # the sample after each attack is graded normally

    run.store.close()
    assert run.sandboxes and leftovers(run.sandboxes, children_before) == []
    assert open_fds() <= fds_before | {f for f in open_fds() if _is_log(f)}
    _nothing_escaped(tcp, udp, harness_files, store_path)


def _is_log(fd: str) -> bool:
    try:
        return "pytest" in os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return False


def _nothing_escaped(tcp: socket.socket, udp: socket.socket, files: dict, store: Path) -> None:
    with pytest.raises(BlockingIOError):
        tcp.accept()
    with pytest.raises(BlockingIOError):
        udp.recvfrom(100)
    for path in files["outside_files"]:
        assert not Path(path).exists(), path
    for path in files["delete_targets"]:
        assert Path(path).is_dir() and any(Path(path).iterdir()), path
    assert not Path("/tmp/codetrial-daemon-was-here").exists()
    raw = b"".join(p.read_bytes() for p in store.parent.iterdir())  # the db and its WAL
    assert SECRET.encode() not in raw
