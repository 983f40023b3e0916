"""Static images of the report's charts (vl-convert renders them without a browser)."""

from __future__ import annotations

from pathlib import Path

from codetrial.report.page import Figure, vegalite_version


def write_pngs(figures: list[Figure], directory: Path, scale: float = 2.0) -> list[Path]:
    """One `NAME.png` per chart; returns the files written."""
    import vl_convert as vlc

    directory.mkdir(parents=True, exist_ok=True)
    version = vegalite_version()
    written = []
    for figure in figures:
        target = directory / f"{figure.name}.png"
        target.write_bytes(vlc.vegalite_to_png(figure.chart.to_dict(), vl_version=version,
                                               scale=scale))
        written.append(target)
    return written
