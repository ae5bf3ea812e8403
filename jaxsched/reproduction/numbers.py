"""The numbers the results' texts quote, read from the files they cite.

A headline in :mod:`jaxsched.reproduction` is a template (``"SJF {sjf}, Packer {packer}"``) whose fields
are :class:`Number` s: the file under ``results/`` that holds the value, how to read it and how it is
written. Nothing measured is typed by hand: ``python -m jaxsched.reproduce --write-readme`` renders the
templates into results/README.md and docs/results/index.md (and the marked numbers of README.md and every
docs page), and ``--check-readme`` renders them again from the committed files and names the item, the file
and both values wherever a text and a file disagree.

Prose quotes a number by writing it just before a marker ``<!--n:ITEM.FIELD-->`` (invisible once rendered):
the checker reads the number before each marker and compares it with the field's value.

Values that no results file holds (a paper's or a spec's number) are :func:`given`, with their source.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import json
import math
import operator
import re
from pathlib import Path
from typing import Callable

import numpy as np

from jaxsched.core import stats
from jaxsched.core.runs import read_csv_rows

BOOTSTRAP_REPS = 2000  # the sweep report's resamples (jaxsched.sweep.BOOTSTRAP_REPS)


class NumberError(ValueError):
    """A number could not be read from its file (missing file, path, column or cell)."""


@dataclasses.dataclass(frozen=True)
class Number:
    """One quoted number: ``read(results_root)`` gives its text; ``file`` is the results file it cites
    (relative to ``results/``; for a :func:`given` number, the paper or spec it comes from)."""

    file: str
    read: Callable[[Path], str]
    given: bool = False
    formats: Callable[[Path, str], str] | None = None  # (root, fmt) -> text: the same value in another format

    def text(self, root: Path) -> str:
        return self.read(root)

    def to(self, fmt: str) -> "Number":
        """The same value written with ``fmt`` (a prose page quoting a headline's 1.605 as 1.60, 9984 as 9,984)."""
        if self.formats is None:
            raise TypeError(f"a number of {self.file} has one format only")
        formats = self.formats
        return Number(self.file, lambda root: formats(root, fmt), self.given, formats)


def _formatted(value: float, fmt: str) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        raise NumberError(f"value is {value}")
    return format(value, fmt)


@functools.lru_cache(maxsize=None)
def _json(path: Path):
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise NumberError(f"{path} does not exist") from None


@functools.lru_cache(maxsize=None)
def _csv(path: Path) -> tuple[dict, ...]:
    try:
        return tuple(read_csv_rows(path))  # metrics.csv may be committed compressed (metrics.csv.xz)
    except FileNotFoundError:
        raise NumberError(f"{path} does not exist") from None


def clear_cache() -> None:
    """Forget the files read so far (a test edits one and reads again)."""
    _json.cache_clear()
    _csv.cache_clear()


def json_value(root: Path, file: str, path: str):
    """The value at ``path`` ("a/b/0/c": keys, or list indices for lists) in the JSON file ``file``."""
    node = _json(Path(root) / file)
    for part in path.split("/") if path else []:
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError):
            raise NumberError(f"{file}: no {path!r} (stopped at {part!r})") from None
    return node


def valued(file: str, value: Callable[[Path], float], fmt: str) -> Number:
    """The value ``value(results_root)`` formatted with ``fmt`` (and with any other format by :meth:`Number.to`)."""
    def formats(root: Path, form: str) -> str:
        return _formatted(value(Path(root)), form)
    return Number(file, lambda root: formats(root, fmt), formats=formats)


def at(file: str, path: str, fmt: str = ".3f", scale: float = 1.0) -> Number:
    """The number at ``path`` of the JSON file ``file`` (times ``scale``), formatted with ``fmt``."""
    return valued(file, lambda root: float(json_value(root, file, path)) * scale, fmt)


def ratio(file: str, numerator: str, denominator: str, fmt: str = ".2f") -> Number:
    """``numerator / denominator``, two paths of the JSON file ``file``."""
    return valued(file, lambda root: float(json_value(root, file, numerator)) / float(json_value(root, file, denominator)),
                  fmt)


def change(file: str, new: str, old: str, fmt: str = "+.0f") -> Number:
    """The relative change ``new / old - 1`` in percent, two paths of the JSON file ``file``."""
    return valued(file, lambda root: 100 * (float(json_value(root, file, new)) / float(json_value(root, file, old)) - 1),
                  fmt)


def given(text: str, source: str) -> Number:
    """A number no results file holds, quoted from ``source`` (a paper's table, a spec file)."""
    return Number(source, lambda root: text, given=True)


def computed(file: str, function: Callable[[Path], float], fmt: str = ".3f") -> Number:
    """Any value ``function(results_root)`` computes from ``file`` (and the files it names)."""
    return valued(file, function, fmt)


def noted(file: str, pattern: str, group: int = 1) -> Number:
    """A number a committed script or note under results/ records in its text (``pattern``'s ``group``), e.g. a
    timing a device_run.sh wrote down beside its command."""
    def read(root: Path) -> str:
        try:
            found = re.search(pattern, (Path(root) / file).read_text())
        except FileNotFoundError:
            raise NumberError(f"{file} does not exist") from None
        if not found:
            raise NumberError(f"{file}: no {pattern!r}")
        return found.group(group)
    return Number(file, read)


def span(low: Number, high: Number) -> Number:
    """``[low, high]``: two numbers quoted as one interval (e.g. a figure file's low and high ends)."""
    return Number(low.file, lambda root: f"[{low.text(root)}, {high.text(root)}]")


def part(count: Number, index: int) -> Number:
    """One side of a ``k/n`` number (index 0: ``k``, 1: ``n``), for prose that writes "k of n"."""
    return Number(count.file, lambda root: count.text(root).split("/")[index])


# ---- CSV rows: a sweep's summary.csv and the like --------------------------------------------------------


def csv_rows(root: Path, file: str, where: dict | None = None) -> list[dict]:
    """The rows of ``file`` whose columns equal ``where``'s values (``run_dir`` matches a cell's prefix)."""
    rows = list(_csv(Path(root) / file))
    for key, wanted in (where or {}).items():
        if rows and key not in rows[0]:
            raise NumberError(f"{file}: no column {key!r}")
        if key == "run_dir":
            rows = [r for r in rows if r[key] == wanted or r[key].startswith(f"cells/{wanted}_")
                    or r[key].startswith(f"{wanted}_")]
        else:
            rows = [r for r in rows if r[key] == str(wanted)]
    if not rows:
        raise NumberError(f"{file}: no row with {where}")
    return rows


def column(root: Path, file: str, name: str, where: dict | None = None) -> np.ndarray:
    rows = csv_rows(root, file, where)
    if name not in rows[0]:
        raise NumberError(f"{file}: no column {name!r}")
    return np.array([float(r[name]) for r in rows])


def seed_interval(values) -> stats.SeedInterval:
    """The seeds' interval of the IQM as the sweep report computes it: the 95% stratified-bootstrap CI from
    :data:`stats.MIN_SEEDS_FOR_CI` seeds, else the range, which its text calls a range."""
    return stats.seed_interval(np.asarray(values, float), stats.iqm, reps=BOOTSTRAP_REPS)


_STATS: dict[str, Callable[[np.ndarray], float]] = {
    "iqm": stats.iqm, "mean": np.mean, "min": np.min, "max": np.max, "median": np.median,
    "count": lambda v: v.size, "sum": np.sum, "value": lambda v: _single(v),
}


def _single(values: np.ndarray) -> float:
    if values.size != 1 and not np.all(values == values[0]):
        raise NumberError(f"{values.size} differing rows where one value was expected")
    return float(values[0])


def seeds(file: str, name: str, stat: str = "iqm", fmt: str = ".3f", **where) -> Number:
    """``stat`` over the rows of the CSV ``file`` (one per seed) that match ``where``: iqm, mean, min, max,
    median, count, sum or value (all rows equal, e.g. a deterministic baseline)."""
    if stat == "count":
        return Number(file, lambda root: _formatted(int(column(root, file, name, where).size), "d"))
    return valued(file, lambda root: float(_STATS[stat](column(root, file, name, where))), fmt)


def interval(file: str, name: str, fmt: str = ".3f", **where) -> Number:
    """The seeds' interval of ``name``'s IQM: ``[low, high]`` (the 95% CI) over >= 5 seeds, written
    ``[range low, high]`` under 5, so that no text calls three seeds' extremes a confidence interval."""
    def formats(root: Path, form: str) -> str:
        return seed_interval(column(root, file, name, where)).text(form)
    return Number(file, lambda root: formats(root, fmt), formats=formats)


def finished(file: str, prefix: str = "final_sampled_", **where) -> Number:
    """``finished / jobs`` summed over the matching rows (``prefix``: final_ for greedy, final_sampled_)."""
    def read(root: Path) -> str:
        rows = csv_rows(root, file, where)
        done, total = (sum(int(float(r[prefix + k])) for r in rows) for k in ("finished", "jobs"))
        return f"{done}/{total}"
    return Number(file, read)


def beating(file: str, prefix: str, metric: str, baseline: str, lower_is_better: bool = True, **where) -> Number:
    """``k/n``: of the ``n`` matching rows (seeds), how many beat ``baseline``'s ``metric`` with every job
    finished (a seed that leaves jobs unfinished is never counted as beating a heuristic)."""
    def read(root: Path) -> str:
        rows = csv_rows(root, file, where)
        wins = 0
        for r in rows:
            mine, theirs = float(r[prefix + metric]), float(r[f"final_{baseline}_{metric}"])
            complete = int(float(r[prefix + "finished"])) == int(float(r[prefix + "jobs"]))
            wins += complete and (mine < theirs if lower_is_better else mine > theirs)
        return f"{wins}/{len(rows)}"
    return Number(file, read)


def sweep(name: str, metric: str = "mean_slowdown", policy: str = "sampled", stat: str = "iqm", cell: str = "",
          fmt: str = ".3f", than: str = "sjf") -> Number:
    """A sweep's ``summary.csv`` (``results/name/``): ``stat`` of ``final_[policy_]metric`` over the seeds of
    ``cell`` (e.g. "cell000"; every row when empty). ``policy``: sampled, "" (greedy) or a baseline (sjf).
    ``stat``: one of :func:`seeds`' statistics, "interval" (:func:`interval`), "finished" (finished / jobs
    summed) or "beating" (seeds beating the baseline ``than`` with every job finished, ``k/n``)."""
    file, where = f"{name}/summary.csv", ({"run_dir": cell} if cell else {})
    prefix = f"final_{policy}_" if policy else "final_"
    if stat == "interval":
        return interval(file, prefix + metric, fmt, **where)
    if stat == "finished":
        return finished(file, prefix, **where)
    if stat == "beating":
        return beating(file, prefix, metric, than, **where)
    return seeds(file, prefix + metric, stat, fmt, **where)


def sweep_summary(name: str, cell: str = "", baselines: tuple[str, ...] = ("sjf", "packer")) -> dict[str, Number]:
    """The usual fields of a one-cell sweep headline: ``seeds``, the sampled ``iqm`` and its interval ``ci``,
    and per baseline its level (``sjf``) and the seeds beating it (``beat_sjf``)."""
    fields = {"seeds": sweep(name, stat="count", cell=cell), "iqm": sweep(name, cell=cell),
              "ci": sweep(name, stat="interval", cell=cell)}
    for baseline in baselines:
        fields[baseline] = sweep(name, policy=baseline, stat="value", cell=cell)
        fields[f"beat_{baseline}"] = sweep(name, stat="beating", than=baseline, cell=cell)
    return fields


# ---- templates -------------------------------------------------------------------------------------------

_FIELD = re.compile(r"\{(\w+)\}")
DECIMAL = re.compile(r"(?<![\w.\-/=])\d+\.\d+(?![\w.])")
# literal decimals a template may keep: settings, not measurements (load 0.7, lambda_s = 0.5, lr 1e-4, ...)
SETTING = re.compile(r"(load|loads|lambda_s =|λ_s =|λ_s|warm start|ws|vf_coef|ent_coef|gamma|γ|lr|coef|at|tau =|"
                     r"τ =|x|fraction|from|to|and|clip|tetris:)\s*$", re.I)


def fields(template: str) -> list[str]:
    return _FIELD.findall(template)


def render(template: str, numbers: dict[str, Number], root: Path) -> str:
    """``template`` with each ``{field}`` replaced by its number's text read under ``root``."""
    missing = [f for f in fields(template) if f not in numbers]
    if missing:
        raise NumberError(f"template fields without a number: {', '.join(missing)}")
    return _FIELD.sub(lambda m: numbers[m.group(1)].text(root), template)


def typed_decimals(template: str) -> list[str]:
    """Decimal numbers written into a template's literal text that do not read as a setting: a measured
    value typed by hand, which should be a field."""
    literal = _FIELD.sub(" ", template)
    return [m.group(0) for m in DECIMAL.finditer(literal) if not SETTING.search(literal[:m.start()])]


def parse(template: str, text: str) -> dict[str, str] | None:
    """The field texts a rendered ``text`` holds (None when its literal words differ from the template's)."""
    pattern, position, seen = "", 0, set()
    for match in _FIELD.finditer(template):
        name = match.group(1)
        group = f"(?P={name})" if name in seen else f"(?P<{name}>.+?)"  # a field used twice reads the same
        pattern += re.escape(template[position:match.start()]) + group
        position, seen = match.end(), seen | {name}
    pattern += re.escape(template[position:])
    found = re.fullmatch(pattern, text, re.S)
    return found.groupdict() if found else None


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """One disagreement between a text and the files: ``where`` (item or file:line), the field, the file
    the number cites, what the text says and what the file gives."""

    where: str
    field: str
    file: str
    text: str
    value: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field} from {self.file}: the text says {self.text!r}, the file gives {self.value!r}"


def compare(where: str, template: str, numbers: dict[str, Number], text: str, root: Path) -> list[Mismatch]:
    """Every field of ``template`` whose number in ``text`` differs from the one read under ``root``."""
    found = parse(template, text)
    if found is None:
        try:
            rendered = render(template, numbers, root)
        except NumberError as error:
            rendered = f"unreadable: {error}"
        return [Mismatch(where, "(whole text)", "registry template", text, rendered)]
    wrong = []
    for field, written in found.items():
        number = numbers[field]
        try:
            value = number.text(root)
        except NumberError as error:
            wrong.append(Mismatch(where, field, number.file, written, f"unreadable: {error}"))
            continue
        if value != written:
            wrong.append(Mismatch(where, field, number.file, written, value))
    return wrong


# a quoted value: an interval ("[1.2, 1.3]", "[range 1.2, 1.3]"), a count ("466/466") or a number ("2.625",
# "-19%", "45x", "1,843"); a "-" right after a number or a marker joins a range ("1.47-1.49", "4<!--n:..-->-7x"),
# so that both ends can be marked, and is no sign
VALUE = r"\[[^\]\[]*\]|\d+/\d+|(?:(?<!-->)(?<![\d.])[-+])?\d[\d,]*(?:\.\d+)?(?:x|%)?"
MARKER = re.compile(rf"(?P<value>{VALUE})<!--n:(?P<item>[\w.\-]+?)\.(?P<field>\w+)-->")
HEADLINE = re.compile(r"<!--h:(?P<item>[\w.\-]+)-->(?P<text>.*?)<!--/h-->", re.S)


# ---- file markers: prose that reads a number straight from a results file ----------------------------------
#
# ``<!--f:SPEC|FMT-->`` after a number quotes ``SPEC`` read under results/ and written with ``FMT`` (a Python
# format spec, e.g. ".3f", ",.0f", ".1%" (a fraction as percent), ",d"; a trailing "x", or a "%" after a spec's
# type letter, is written as is: ".1fx" gives "9.8x", ".1f%" gives "9.8%" for a file's 9.8). SPEC is
#   FILE.json:a/b/0/c                  the JSON value at that path (keys, list indices, -1 the last item)
#   FILE.json:a/b|STAT                 STAT over the list at that path
#   FILE.csv:COLUMN[k=v,k2=v2]|STAT    STAT over the column's rows where the columns equal (run_dir: a cell)
# with STAT one of iqm, mean, median, min, max, sum, count, first, last, value (every row equal); or an
# arithmetic of such sources, each in braces: ``{a.json:x} / {a.json:y} - 1`` (+ - * / and parentheses).
# A missing file, path, column or row is an error that names the marker, the file and the path.

FILE_MARKER = re.compile(rf"(?P<value>{VALUE})<!--f:(?P<spec>(?:(?!-->).)+?)-->")
_SOURCE = re.compile(r"\{([^{}]+)\}")
_WHERE = re.compile(r"^(?P<column>[^\[\]]+?)(?:\[(?P<where>[^\[\]]*)\])?$")
_FILE_STATS: dict[str, Callable[[np.ndarray], float]] = {
    **_STATS, "first": lambda v: float(v[0]), "last": lambda v: float(v[-1]), "count": lambda v: float(v.size)}


def _source_value(root: Path, source: str) -> float:
    """One ``FILE:SELECTOR[|STAT]`` of a file marker, read under ``root``."""
    file, colon, selector = source.strip().partition(":")
    if not colon or not file:
        raise NumberError(f"{source!r} is not FILE:PATH")
    selector, _, stat = selector.partition("|")
    if stat and stat not in _FILE_STATS:
        raise NumberError(f"{file}: unknown statistic {stat!r} (one of {', '.join(_FILE_STATS)})")
    if file.endswith(".csv"):
        found = _WHERE.match(selector)
        if not found:
            raise NumberError(f"{file}: {selector!r} is not COLUMN[k=v,...]")
        where = dict(pair.split("=", 1) for pair in found.group("where").split(",")) if found.group("where") else {}
        values = column(root, file, found.group("column"), where)
        return float(_FILE_STATS[stat or "value"](values))
    if not file.endswith(".json"):
        raise NumberError(f"{file}: a file marker reads .json or .csv files")
    node = json_value(root, file, selector)
    if stat:
        if not isinstance(node, list):
            raise NumberError(f"{file}: {selector!r} is not a list for {stat!r}")
        return float(_FILE_STATS[stat](np.asarray(node, float)))
    if isinstance(node, (dict, list)) or node is None:
        raise NumberError(f"{file}: {selector!r} is not a number")
    return float(node)


_ARITHMETIC = re.compile(r"^[\s\d.eE+\-*/()]*$")


def _arithmetic(expression: str) -> float:
    """``expression`` of numbers, + - * / and parentheses (nothing else is evaluated)."""
    if not _ARITHMETIC.match(expression):
        raise NumberError(f"{expression!r} is not an arithmetic of sources")
    tree = ast.parse(expression, mode="eval")
    operators = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

    def value(node) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -value(node.operand) if isinstance(node.op, ast.USub) else value(node.operand)
        raise NumberError(f"{expression!r} is not an arithmetic of sources")
    return value(tree.body)


def file_spec_files(spec: str) -> list[str]:
    """The files a file marker's ``SPEC|FMT`` reads."""
    body = spec.rpartition("|")[0]
    sources = _SOURCE.findall(body) or [body]
    return [s.strip().partition(":")[0] for s in sources]


def file_spec_text(spec: str, root: Path) -> str:
    """The text of a file marker's ``SPEC|FMT`` (see the comment above :data:`FILE_MARKER`) read under ``root``."""
    body, bar, fmt = spec.rpartition("|")
    if not bar or not fmt:
        raise NumberError(f"{spec!r} has no |FORMAT")
    if _SOURCE.search(body):
        value = _arithmetic(_SOURCE.sub(lambda m: repr(_source_value(root, m.group(1))), body))
    else:
        value = _source_value(root, body)
    suffix = ""
    if len(fmt) > 1 and (fmt.endswith("x") or fmt[-1] == "%" and fmt[-2] in "dfFge"):
        fmt, suffix = fmt[:-1], fmt[-1]
    if fmt.endswith("d"):
        if value != int(value):
            raise NumberError(f"{spec!r}: {value} is not a whole number for {fmt!r}")
        value = int(value)
    try:
        return _formatted(value, fmt) + suffix
    except ValueError as error:
        raise NumberError(f"{spec!r}: {error}") from None


def file_marker_mismatches(text: str, name: str, root: Path) -> list[Mismatch]:
    """Every ``<!--f:SPEC|FMT-->`` number of ``text`` (the file ``name``) that differs from the file it reads
    under ``root``, or whose file, path, column or row does not exist (named with the marker)."""
    wrong = []
    for match in FILE_MARKER.finditer(text):
        spec = match.group("spec")
        where = f"{name}:{text.count(chr(10), 0, match.start()) + 1} <!--f:{spec}-->"
        files = ", ".join(file_spec_files(spec))
        try:
            value = file_spec_text(spec, root)
        except (NumberError, ValueError, ZeroDivisionError) as error:
            wrong.append(Mismatch(where, "f", files, match.group("value"), f"unreadable: {error}"))
            continue
        if value != match.group("value"):
            wrong.append(Mismatch(where, "f", files, match.group("value"), value))
    return wrong


def with_file_markers(text: str, root: Path) -> str:
    """``text`` with every ``<!--f:SPEC|FMT-->`` number written from its file under ``root``."""
    return FILE_MARKER.sub(lambda m: file_spec_text(m.group("spec"), root) + f"<!--f:{m.group('spec')}-->", text)


# ---- what a text still types by hand ---------------------------------------------------------------------

_CODE = re.compile(r"^```.*?^```|^(?: {4}|\t)[^\n]*$", re.M | re.S)
_GENERATED = re.compile(r"<!-- reproduce:begin -->.*?<!-- reproduce:end -->", re.S)
_BACKTICKS = re.compile(r"`[^`\n]*`")
_QUOTED = re.compile(rf"(?:{VALUE})<!--[nf]:(?:(?!-->).)+?-->|<!--h:.*?<!--/h-->", re.S)


def _blank(match: re.Match) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def prose(text: str) -> str:
    """``text`` with its generated index, its code blocks (indented or fenced) and backticks blanked (lines kept)."""
    for pattern in (_GENERATED, _CODE, _BACKTICKS):
        text = pattern.sub(_blank, text)
    return text


def quoted_count(text: str) -> int:
    """How many numbers of ``text``'s prose are quoted through a marker (n:, f:) or a marked headline's fields."""
    body = prose(text)
    return len(MARKER.findall(body)) + len(FILE_MARKER.findall(body)) + len(HEADLINE.findall(body))


def typed_numbers(text: str) -> list[tuple[int, str, str]]:
    """The decimal numbers ``text``'s prose writes without a marker: (line, number, the words before it)."""
    body = _QUOTED.sub(_blank, prose(text))
    found = []
    for match in DECIMAL.finditer(body):
        line_start = body.rfind("\n", 0, match.start()) + 1
        found.append((body.count("\n", 0, match.start()) + 1, match.group(0), body[line_start:match.start()][-40:]))
    return found
