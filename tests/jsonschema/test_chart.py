"""The per-group chart from run summaries: a column per group, a dot per schema (compile errors
at 0), nudged apart when they would cover each other, one panel per contender, tooltips, HTML."""

from codetrial.suites.jsonschema.chart import PER_ROW, chart, chart_data, save_html


def summary(label, verdicts, group="g"):
    groups = [{"task": f"{group}/{i}", "sample": 0, "file": group, "description": f"group {i}",
               "schema": '{"type":"integer"}', "verdict": v, "percent": p,
               "passed": ["a"] if p else [], "failed": [] if p == 100 else ["b"]}
              for i, (v, p) in enumerate(verdicts)]
    return {"model": "reference", "contender": label, "groups": groups}


def test_chart_has_a_panel_per_contender_and_tooltips(tmp_path):
    runs = [summary("library:jsonschema", [("ok", 100.0), ("ok", 100.0)]),
            summary("model-x", [("partial", 50.0), ("compile", 0.0)])]
    marks, schemas = chart_data(*runs)
    assert {r["contender"] for r in marks} == {"library:jsonschema", "model-x"}
    assert [s["task"] for s in schemas] == ["g/0", "g/1"]  # once, whoever answered
    assert marks[3]["tests"] == "\u274c b" and marks[3]["percent"] == 0.0
    assert marks[2]["tests"] == "\u274c b\n\u2705 a" and marks[2]["right"] == "1 of 2 (50%)"
    spec = chart(*runs).to_dict()
    assert spec["facet"]["row"]["field"] == "contender"
    encoding = spec["spec"]["encoding"]
    assert encoding["color"]["scale"]["domain"] == ["ok", "partial", "failure", "compile"]
    assert encoding["x"]["field"] == "group"
    assert {t["field"] for t in encoding["tooltip"]} >= {"schema", "description", "tests"}
    page = save_html(chart(*runs), tmp_path / "groups.html").read_text()
    assert "vega" in page and "model-x" in page


def test_dots_of_one_group_and_percent_are_nudged_apart():
    marks, _ = chart_data(summary("m", [("ok", 100.0)] * 7 + [("partial", 50.0)] * 3))
    full = [(m["dx"], m["y"]) for m in marks if m["percent"] == 100.0]
    assert len(set(full)) == 7  # no two on the same pixel
    assert all(y <= 100 for _, y in full)  # further rows go down, inside the plot
    assert [dx for dx, y in full if y == 100] == sorted(dx for dx, y in full if y == 100)
    assert len([1 for _, y in full if y == 100]) == PER_ROW
    half = [(m["dx"], m["y"]) for m in marks if m["percent"] == 50.0]
    assert len(set(half)) == 3 and {y for _, y in half} == {50.0}


def test_a_long_test_list_is_cut_in_the_tooltip():
    row = summary("m", [("partial", 50.0)])["groups"][0]
    row["failed"] = [f"t{i}" for i in range(20)]
    marks, _ = chart_data({"contender": "m", "groups": [row]})
    lines = marks[0]["tests"].split("\n")
    assert len(lines) == 13 and lines[-1] == "... 9 more"
