"""How results/ stores what it keeps: metrics logs at float32 digits, xz-compressed, and figures as palette
PNGs (issue 55: a light clone).

    python -m jaxsched.reproduce --compact [PATH ...]

Training writes its metrics with :func:`jaxsched.core.runs.metric_text` and every figure goes through
:func:`jaxsched.core.plotting.save_figure`, so what ``reproduce`` writes is already stored this way; this
re-encodes files written before (the committed logs of older code, whose float32 values carry float64's
17 digits, and RGBA PNGs). Nothing is lost at the precision a value was computed in.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from PIL import Image

from jaxsched.core.plotting import write_palette_png
from jaxsched.core.runs import compact_metric_field, compress_csv, compressed_path, open_csv

LOG = "metrics.csv"


def _csv_text(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)  # what csv.DictWriter writes (MetricsLog)
    return out.getvalue()


def compact_log(path: Path) -> Path:
    """Rewrites the metrics log ``path`` (``metrics.csv`` or ``metrics.csv.xz``) with float32 values at
    their shortest digits and returns its compressed copy; refuses a file the csv module did not write."""
    plain = Path(path).with_suffix("") if Path(path).suffix == ".xz" else Path(path)
    with open_csv(plain) as f:
        text = f.read()
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if _csv_text(rows) != text:
        raise ValueError(f"{path}: not a CSV as jaxsched writes it (rows do not round-trip); left as it is")
    compacted = _csv_text(rows[:1] + [[compact_metric_field(field) for field in row] for row in rows[1:]])
    with open(plain, "w", newline="") as f:
        f.write(compacted)
    compressed_path(plain).unlink(missing_ok=True)
    return compress_csv(plain)


def compact_figure(path: Path) -> Path:
    """Re-encodes the PNG ``path`` as a 256-colour palette PNG (as every figure is now written)."""
    with Image.open(path) as image:
        image.load()
        write_palette_png(image, Path(path))
    return Path(path)


def compact(paths: list[Path]) -> tuple[int, int, int]:
    """Compacts every metrics log and PNG among ``paths`` (folders are searched); returns (files,
    bytes before, bytes after)."""
    files = []
    for path in map(Path, paths):
        candidates = sorted(path.rglob("*")) if path.is_dir() else [path]
        files += [p for p in candidates if p.name in (LOG, LOG + ".xz") or p.suffix == ".png"]
    before = after = 0
    for path in files:
        before += path.stat().st_size
        written = compact_figure(path) if path.suffix == ".png" else compact_log(path)
        after += written.stat().st_size
    return len(files), before, after
