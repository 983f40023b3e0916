"""The per-group chart from run summaries: one panel per contender, tooltips, HTML."""

from codetrial.suites.jsonschema.chart import chart, chart_data, save_html


def summary(label, verdicts):
    groups = [{"task": f"g/{i}", "sample": 0, "file": "g", "description": f"group {i}",
               "schema": '{"type":"integer"}', "verdict": v, "percent": p,
               "passed": ["a"] if p else [], "failed": [] if p == 100 else ["b"]}
              for i, (v, p) in enumerate(verdicts)]
    return {"model": "reference", "contender": label, "groups": groups}


def test_chart_has_a_panel_per_contender_and_tooltips(tmp_path):
    runs = [summary("library:jsonschema", [("ok", 100.0), ("ok", 100.0)]),
            summary("model-x", [("partial", 50.0), ("compile", 0.0)])]
    rows = chart_data(*runs)
    assert {r["contender"] for r in rows} == {"library:jsonschema", "model-x"}
    assert rows[3]["failed"] == "b" and rows[3]["passed"] == "-"
    spec = chart(*runs).to_dict()
    assert spec["facet"]["row"]["field"] == "contender"
    encoding = spec["spec"]["encoding"]
    assert encoding["color"]["scale"]["domain"] == ["ok", "partial", "failure", "compile"]
    assert {t["field"] for t in encoding["tooltip"]} >= {"schema", "passed", "failed"}
    page = save_html(chart(*runs), tmp_path / "groups.html").read_text()
    assert "vega" in page and "model-x" in page
