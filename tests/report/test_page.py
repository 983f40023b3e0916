"""The page itself: run data can never become markup or script, and nothing is fetched."""

from __future__ import annotations

import json
import re

import altair as alt

from codetrial.report.page import Figure, Section, esc, render_page, script_json
from tests.report.builders import HOSTILE

BUNDLE = "window.vegaEmbed = () => Promise.resolve();"


def hostile_page() -> str:
    chart = alt.Chart(alt.Data(values=[{"model": HOSTILE, "rate": float("nan")}])).mark_bar()
    figure = Figure("x", HOSTILE, chart.encode(x="model:N", y="rate:Q"), caption=HOSTILE)
    return render_page(HOSTILE, [Section("s", HOSTILE, [esc(HOSTILE), figure])], BUNDLE)


def test_json_for_a_script_block_cannot_close_it_and_still_parses():
    text = script_json({"reply": HOSTILE, "rate": float("nan")})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"reply": HOSTILE, "rate": None}


def test_run_data_never_becomes_markup_or_script():
    page = hostile_page()
    assert HOSTILE not in page
    scripts = re.findall(r"<script[^>]*>", page)
    assert scripts == ["<script>", '<script type="application/json" id="spec-x">',
                       '<script type="application/json" id="embed-options">', "<script>",
                       "<script>"]
    assert "<img" not in page and 'id="injected"' not in page


def test_the_chart_data_survives_the_escaping():
    page = hostile_page()
    block = re.search(r'<script type="application/json" id="spec-x">(.*?)</script>', page, re.S)
    spec = json.loads(block.group(1))
    values = spec["data"]["values"]
    assert values == [{"model": HOSTILE, "rate": None}]


def test_the_page_loads_nothing_from_the_network():
    page = hostile_page()
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", page)
