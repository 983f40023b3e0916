"""A real headless Chromium, driven from its command line: the DOM after the scripts ran, what
the page logged to its console, and a screenshot. Each call gets a fresh, empty profile."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")
CONSOLE = re.compile(r":CONSOLE(?::\d+)?\] (.*)$")
BUDGET_MS = 20_000  # virtual time: the page's timers, not the wall clock


def chromium() -> str | None:
    return shutil.which("chromium") or next(
        (p for p in ("/usr/bin/chromium",) if Path(p).is_file()), None)


def _run(page: Path, *flags: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        return subprocess.run(
            [chromium() or "chromium", *FLAGS, f"--user-data-dir={profile}",
             f"--virtual-time-budget={BUDGET_MS}", *flags, page.resolve().as_uri()],
            capture_output=True, text=True, timeout=timeout, check=True)


def load(page: Path) -> tuple[str, list[str]]:
    """The DOM once the page settled, and every console message it logged."""
    done = _run(page, "--enable-logging=stderr", "--v=0", "--dump-dom")
    messages = [m.group(1) for line in done.stderr.splitlines() if (m := CONSOLE.search(line))]
    return done.stdout, messages


def screenshot(page: Path, target: Path, size: tuple[int, int] = (1280, 2400)) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    _run(page, f"--window-size={size[0]},{size[1]}", f"--screenshot={target.resolve()}")
    return target


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Charts(HTMLParser):
    """Chart containers (elements with data-spec) and whether an <svg> or <canvas> is inside."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn: dict[str, bool] = {}
        self._open: list[tuple[str, int]] = []  # (container id, depth)
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        self._depth += 1
        found = dict(attrs)
        if "data-spec" in found:
            name = found.get("id") or "?"
            self._open.append((name, self._depth))
            self.drawn[name] = False
        if tag in ("svg", "canvas"):
            for name, _ in self._open:
                self.drawn[name] = True

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self._open and self._open[-1][1] == self._depth:
            self._open.pop()
        self._depth -= 1


def charts(dom: str) -> dict[str, bool]:
    parser = Charts()
    parser.feed(dom)
    return parser.drawn


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def elements(dom: str) -> list[tuple[str, dict[str, str | None]]]:
    """Every element of the page as (tag, attributes): what the page made, not its text."""
    parser = _Elements()
    parser.feed(dom)
    return parser.found


# Runs in a copy of the page once every chart is drawn: reads what a person would see (marks
# and the data bound to them, axis labels, cell widths), then shows the spec section alone and
# hovers a compile-error mark the way a mouse would (pointer and mouse events dispatched on
# it), and writes it all as JSON.
PROBE = """
(function () {
  const result = {errors: [], viewport: window.innerWidth};
  function finish() {
    const out = document.createElement("pre");
    out.id = "probe-result";
    out.hidden = true;
    out.textContent = JSON.stringify(result);
    document.body.appendChild(out);
  }
  function visible(el) {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  function read() {
    const chart = document.getElementById("chart-spec-groups");
    const paths = Array.from(chart.querySelectorAll("g.mark-symbol.role-mark path"));
    result.marks = paths.map((p) => ({...(p.__data__ || {}).datum, visible: visible(p)}));
    const axes = Array.from(chart.querySelectorAll("g.role-axis"))
      .filter((a) => (a.getAttribute("aria-label") || "").startsWith("X-axis"));
    result.axis = Array.from(new Set(axes.flatMap((a) => Array.from(
      a.querySelectorAll("g.role-axis-label text")).map((t) => t.textContent)))).sort();
    result.wide_cells = Array.from(document.querySelectorAll("td, th"))
      .filter((c) => c.getBoundingClientRect().width > window.innerWidth)
      .map((c) => c.textContent.slice(0, 80));
    result.summary_width = document.querySelector("#summary table").getBoundingClientRect().width;
    const note = document.getElementById("unfinished");
    result.unfinished = note ? note.textContent : "";
    const target = paths.find((p) => ((p.__data__ || {}).datum || {}).verdict === "compile");
    // the spec section alone, at the top: a headless screenshot does not follow scrolling
    for (const el of document.body.children) {
      if (el.id !== "spec" && el.tagName !== "SCRIPT") el.style.display = "none";
    }
    const box = target.getBoundingClientRect();
    const at = {bubbles: true, cancelable: true, view: window, clientX: box.x + box.width / 2,
                clientY: box.y + box.height / 2};
    for (const type of ["pointerover", "pointerenter", "mouseover", "pointermove", "mousemove"]) {
      const Kind = type.startsWith("pointer") ? PointerEvent : MouseEvent;
      target.dispatchEvent(new Kind(type, at));
    }
    setTimeout(() => {
      const tip = document.getElementById("vg-tooltip-element");
      result.tooltip = {visible: !!tip && tip.classList.contains("visible"),
                        text: tip ? tip.innerText : ""};
      finish();
    }, 300);
  }
  function wait() {
    if (document.body.dataset.chartsDone) {
      try { read(); } catch (err) { result.errors.push(String(err)); finish(); }
    } else {
      setTimeout(wait, 50);
    }
  }
  wait();
})();
"""


def probe(page: Path, shot: Path, size: tuple[int, int]) -> dict:
    """What PROBE saw in the page at a window of `size`; `shot` shows it, tooltip included."""
    import html
    import json

    copy = page.with_name(f"probed-{page.name}")
    head, end, tail = page.read_text(encoding="utf-8").rpartition("</body>")
    copy.write_text(f"{head}<script>{PROBE}</script>{end}{tail}", encoding="utf-8")
    window = f"--window-size={size[0]},{size[1]}"
    dom = _run(copy, window, "--dump-dom").stdout
    shot.parent.mkdir(parents=True, exist_ok=True)
    _run(copy, window, f"--screenshot={shot.resolve()}")
    found = re.search(r'<pre id="probe-result"[^>]*>(.*?)</pre>', dom, re.S)
    assert found, "the probe did not finish"
    return json.loads(html.unescape(found.group(1)))
