"""The review queue through the command line: list, show, accept, reject."""

from codetrial.synth.state import State


def queued(cli, tmp_path):
    """A filtered python:statistics directory with two cases waiting for review."""
    out = tmp_path / "stats"
    assert cli("synth", "python:statistics", "--functions", "median", "--out", str(out)
                 ).code == 0
    state = State(out)
    for f in state.filtered():
        state.record_step(f.seed.id, "instruction", 0, "author", {}, "reply",
                          "Give the middle value of the numbers.", "ok")
        state.record_step(f.seed.id, "validation", 0, "validator", {}, "reply",
                          {"fill": "statistics.mean([1])", "detail": "AssertionError: 1.0"},
                          "failed")
        state.set_case(f.seed.id, "review", note="AssertionError: 1.0")
    state.close()
    return out


def test_list_show_accept_reject(cli, tmp_path):
    out = queued(cli, tmp_path)
    listed = cli("synth", "review", str(out))
    assert listed.code == 0
    assert listed.stdout.splitlines() == ["median-1\tAssertionError: 1.0",
                                          "median-2\tAssertionError: 1.0"]

    shown = cli("synth", "review", str(out), "show", "median-1").stdout
    assert "  # Give the middle value of the numbers.\n  result = <here>" in shown
    assert "its fill: 'statistics.mean([1])'" in shown and "# state: review" in shown

    accepted = cli("synth", "review", str(out), "accept", "median-1")
    assert accepted.code == 0 and (out / "median-1.yaml").is_file()
    assert "verdict: accepted-in-review" in (out / "median-1.yaml").read_text()
    assert cli("synth", "review", str(out), "reject", "median-2").code == 0
    assert not (out / "median-2.yaml").exists()
    assert cli("synth", "review", str(out)).stdout == ""

    result = cli("run", "yaml", "--path", str(out), "--model", "reference", "--json")
    assert result.code == 0 and result.json()["passed"] == 1

    again = cli("synth", "review", str(out), "accept", "median-1")
    assert again.code == 2 and "is accepted" in again.stderr
    assert cli("synth", "review", str(out), "reject", "median-1").code == 0
    assert not (out / "median-1.yaml").exists()


def test_review_needs_a_synthesis_directory(cli, tmp_path):
    result = cli("synth", "review", str(tmp_path))
    assert result.code == 2 and "no synthesis here" in result.stderr
    out = queued(cli, tmp_path)
    bad = cli("synth", "review", str(out), "promote", "median-1")
    assert bad.code == 2 and "use list, show, accept or reject" in bad.stderr
