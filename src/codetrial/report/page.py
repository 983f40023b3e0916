"""The HTML page: sections of escaped HTML and charts, with Vega inlined so it works offline.

Model output is untrusted. Text goes through `esc`; chart specs go into `<script
type="application/json">` blocks with `<`, `>` and `&` written as JSON escapes, so no string in
them can close the block; one fixed script parses them and calls vegaEmbed. Nothing from a run
is ever written into JavaScript source.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import altair as alt

EMBED_OPTIONS = {"renderer": "svg", "actions": {"export": True, "source": False,
                                                 "compiled": False, "editor": False}}

# Runs first, so that even an error while the bundle loads is shown on the page.
CATCH_ERRORS = """
window.reportErrors = [];
function reportError(message) {
  window.reportErrors.push(String(message));
  document.documentElement.dataset.errors = window.reportErrors.length;
}
window.addEventListener("error", (e) => reportError(e.message));
window.addEventListener("unhandledrejection", (e) => reportError(e.reason));
"""

EMBED_CHARTS = """
(function () {
  const boxes = Array.from(document.querySelectorAll("[data-spec]"));
  const options = JSON.parse(document.getElementById("embed-options").textContent);
  Promise.all(boxes.map((box) => {
    const spec = JSON.parse(document.getElementById(box.dataset.spec).textContent);
    return vegaEmbed(box, spec, options).catch((err) => {
      box.textContent = "chart failed: " + err;
      reportError(err);
    });
  })).then(() => { document.body.dataset.chartsDone = boxes.length; });
})();
"""

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 2rem 4rem; color: #222; }
h1 { margin-top: 1.5rem; } h2 { border-bottom: 1px solid #ccc; margin-top: 2.5rem; }
nav a { margin-right: 1rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: left; vertical-align: top;
         max-width: 18rem; overflow-wrap: anywhere; }
th { background: #f4f4f4; overflow-wrap: normal; }
td.id { overflow-wrap: normal; }  /* breaks at its hyphens */
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
pre { background: #f7f7f7; padding: .5rem; overflow-x: auto; max-height: 30rem;
      white-space: pre-wrap; word-break: break-word; }
details { margin: .2rem 0; } details > div { margin-left: 1.2rem; }
summary { cursor: pointer; }
.verdict-passed { color: #2a7d2a; } .verdict-infra { color: #8a6d00; }
.verdict-failed { color: #b22222; }
.note { color: #666; }
.chart { margin: 1rem 0; overflow-x: auto; }
.wide { overflow-x: auto; }
td.small { font-size: 12px; color: #444; min-width: 8rem; }
td.unfinished { color: #b22222; min-width: 8rem; }
.warning { color: #b22222; }
.warning { border: 1px solid #b22222; background: #fff5f5; padding: 0 1rem; margin: 1rem 0; }
details.fold > summary { color: #245; }
#vg-tooltip-element { max-width: min(40rem, 90vw); }
#vg-tooltip-element table tr td { border: 0; padding: 1px 4px; }
#vg-tooltip-element table tr td.value { white-space: pre-wrap; overflow-wrap: anywhere;
                                        max-width: 34rem; max-height: none; }
"""


@dataclass(frozen=True)
class Figure:
    """A chart with a name that is safe as an element id and a file name."""

    name: str
    title: str
    chart: alt.TopLevelMixin
    caption: str = ""


@dataclass
class Section:
    id: str
    title: str
    parts: list[str | Figure] = field(default_factory=list)  # str: HTML already escaped

    def figures(self) -> list[Figure]:
        return [p for p in self.parts if isinstance(p, Figure)]


def esc(value: Any) -> str:
    """Every piece of run data passes here before it becomes HTML."""
    return html.escape(str(value), quote=True)


def esc_text(value: Any) -> str:
    """`esc` for text between tags, never an attribute: quotes stay as they are (model code is
    full of them), `<`, `>` and `&` are escaped."""
    return html.escape(str(value), quote=False)


def script_json(value: Any) -> str:
    """JSON that cannot end its <script> block nor start a comment in it."""
    text = json.dumps(_finite(value), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _finite(value: Any) -> Any:
    """NaN and infinities (an empty run's rate) are not JSON: they become null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def vegalite_version() -> str | None:
    """The Vega-Lite that altair writes specs for, when vl-convert ships it (else its latest)."""
    import vl_convert as vlc

    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    return wanted if wanted in vlc.get_vegalite_versions() else None


@lru_cache(maxsize=1)
def javascript_bundle() -> str:
    """Vega, Vega-Lite and vega-embed in one script (built once per process: ~7 s)."""
    import vl_convert as vlc

    return vlc.javascript_bundle(vl_version=vegalite_version()).replace("</script", "<\\/script")


def render_page(title: str, sections: list[Section], bundle: str) -> str:
    nav = " ".join(f'<a href="#{esc(s.id)}">{esc(s.title)}</a>' for s in sections)
    body = "\n".join(_section_html(s) for s in sections)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<style>{STYLE}</style>
<script>{CATCH_ERRORS}</script>
</head><body>
<h1>{esc(title)}</h1>
<nav>{nav}</nav>
{body}
<script type="application/json" id="embed-options">{script_json(EMBED_OPTIONS)}</script>
<script>{bundle}</script>
<script>{EMBED_CHARTS}</script>
</body></html>
"""


def _section_html(section: Section) -> str:
    parts = [_figure_html(p) if isinstance(p, Figure) else p for p in section.parts]
    return (f'<section id="{esc(section.id)}"><h2>{esc(section.title)}</h2>\n'
            + "\n".join(parts) + "</section>")


def _figure_html(figure: Figure) -> str:
    spec_id = f"spec-{figure.name}"
    caption = f'<p class="note">{esc(figure.caption)}</p>' if figure.caption else ""
    return (f'<h3>{esc(figure.title)}</h3>{caption}'
            f'<div class="chart" id="chart-{esc(figure.name)}" data-spec="{esc(spec_id)}"></div>'
            f'<script type="application/json" id="{esc(spec_id)}">'
            f"{script_json(figure.chart.to_dict())}</script>")
