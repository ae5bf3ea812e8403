"""Time to result (issue 52): per results item, the wall-clock its runs' files record and the hardware that
took it, the training budget beside the paper's, and whether the item is remade within 3 hours on the
project's 2-core CPU (``python -m jaxsched.reproduce --timings``; docs/results/timings.md).

The training wall-clock of a run is read from its files: metrics.csv ``wall_s`` summed over the rows of one
seed (the seeds are vmapped: every seed's row of an iteration carries the same time), plus the behaviour
cloning that behaviour_cloning.json records (one seed after another). config.json's ``hosts`` say what
trained it (:mod:`jaxsched.core.host`); runs written before they were recorded take the item's
``run_hardware`` or ``hardware``. An item's runs are the ones its own commands train (a ``train`` or a
``sweep`` into results/, a scratch run that ``compare_runs`` or ``mdp_summary`` copies there, a
``trace_policy`` study's ``run/``) and its ``runs``; runs it only reads are another item's.

Time on the 2-core CPU: the larger of the runs' training there and the item's recorded wall-clock (which
also counts evaluation and studies) when that was measured there; an item with a run only an accelerator
trained has none, unless its recorded wall-clock is a CPU estimate. Nothing measured is typed here: the
paper's budgets are :func:`~jaxsched.reproduction.numbers.given`, with their source.
"""

from __future__ import annotations

import csv
import dataclasses
import fnmatch
import json
from pathlib import Path

from jaxsched.core.host import label
from jaxsched.core.runs import open_csv, stored_exists
from jaxsched.reproduction import BY_ID, ITEMS, Item
from jaxsched.reproduction.items import CPU
from jaxsched.reproduction.numbers import Number, given

LIMIT_S = 3 * 3600  # issue 52: every headline result within 3 hours on the 2-core CPU
SCRATCH = "\0scratch"  # stands for {scratch} in the commands: runs there are not kept unless copied

# The paper's training budget per family, with where the paper states it.
PAPER_BUDGETS: dict[str, Number] = {
    "deeprm": given("1000 iterations x 100 jobsets x 20 rollouts",
                    "Mao et al., HotNets'16, §5 (100 jobsets, N = 20 rollouts, 1000 iterations; 80 s per iteration "
                    "on a 24-core CPU server)"),
    "deeprm2": given("500 epochs x 100 jobsets x 20 rollouts",
                     "DeepRM2 / DeepRM_Off paper, §4.1 (100 experiments x 20 Monte Carlo simulations per epoch) and "
                     "Fig. 5 (500 epochs)"),
    "deeprm_off": given("not stated", "DeepRM2 / DeepRM_Off paper, §4.3 (Fig. 7 plots DeepRM_Off's training)"),
    "bracis": given("3M decisions per agent",
                    "Cunha and Chaimowicz, BRACIS'21, §5 (three million time-steps as perceived by the agent)"),
    "cvd-rl": given("3000 epochs x 5 episodes per seed, 5 seeds",
                    "Sheng et al., CVD-RL, §5.1 (sampling 3000 epochs: ~9 h at 50 PMs, ~33 h at 100 PMs) and §5.3"),
    "grid": given("not stated", "the grid paper (SARSA + Echo State Network supervising an EGEE site)"),
}
# Which paper's budget an item stands beside: the first prefix its id (without "sweep_") starts with.
PAPER_OF = (("deeprm2", "deeprm2"), ("deeprm_off", "deeprm_off"), ("deeprm", "deeprm"), ("mdp", "bracis"),
            ("vm", "cvd-rl"), ("grid", "grid"))


@dataclasses.dataclass(frozen=True)
class RunTime:
    """One training run's files: seconds per hardware, iterations, seeds and decisions per seed (None: not logged)."""

    path: str  # under the results root
    seconds: dict[str, float]
    iterations: int
    seeds: int
    decisions: float | None


@dataclasses.dataclass(frozen=True)
class Timing:
    """An item's runs as its files hold them, and the runs it trains that results/ does not keep."""

    item: Item
    runs: tuple[RunTime, ...]
    missing: tuple[str, ...]

    def seconds(self) -> dict[str, float]:
        """Training seconds per hardware, over the item's runs."""
        total: dict[str, float] = {}
        for run in self.runs:
            for hardware, seconds in run.seconds.items():
                total[hardware] = total.get(hardware, 0.0) + seconds
        return total

    def cpu(self) -> tuple[float, str] | None:
        """(seconds, where from) of the item on the 2-core CPU, the larger of "metrics" (its runs there) and
        "recorded" / "estimate" (the registry's, when measured there); None when it ran elsewhere only, or an
        accelerator alone trained some of its runs and the registry holds no CPU estimate of the whole."""
        seconds = self.seconds()
        elsewhere = set(seconds) - {CPU}
        recorded = self.item.wall_s if self.item.hardware == CPU else None
        if elsewhere and not (recorded is not None and self.item.estimate):
            return None
        figures = [(seconds[CPU], "metrics")] if CPU in seconds else []
        if recorded is not None:
            figures.append((recorded, "estimate" if self.item.estimate else "recorded"))
        return max(figures) if figures else None


def duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else (
        f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s")


def _flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def _copies(argv: list[str], trained: dict[str, None]) -> list[tuple[str, str]]:
    """(scratch run, its copy) of a ``compare_runs`` (``LABEL=RUN`` into ``--out/LABEL``) or an ``mdp_summary``
    (``OUT RUN...`` into ``OUT/<run name>``) command, for the runs ``trained`` by the item itself."""
    if argv[0] == "jaxsched.studies.compare_runs":
        out = _flag(argv, "--out")
        pairs = [a.split("=", 1) for a in argv[1:] if "=" in a and not a.startswith("-")]
        return [(run, f"{out}/{name}") for name, run in pairs if run in trained]
    if argv[0] == "jaxsched.studies.mdp_summary":
        return [(run, f"{argv[1]}/{Path(run).name}") for run in argv[2:] if run in trained]
    return []


def run_folders(item: Item, root: Path) -> tuple[list[Path], list[str]]:
    """The folders under ``root`` holding ``item``'s training runs, and its runs that no folder there keeps."""
    trained: dict[str, None] = {}  # train --out / --resume paths, in order
    found: list[Path] = []
    for step in item.steps:
        argv = step.argv(str(root), SCRATCH)
        if argv[0] == "jaxsched.train":
            trained[_flag(argv, "--out") or _flag(argv, "--resume")] = None
        elif argv[0] == "jaxsched.sweep":
            cells = Path(_flag(argv, "--out")) / "cells"
            found += sorted(p for p in cells.iterdir() if p.is_dir()) if cells.is_dir() else []
        elif argv[0] == "jaxsched.studies.trace_policy":
            found.append(Path(_flag(argv, "--out")) / "run")
        for run, copy in _copies(argv, trained):
            if run.startswith(SCRATCH):
                found.append(Path(copy))
                trained.pop(run)
    found += [Path(run) for run in trained if not run.startswith(SCRATCH)]
    found += [p for pattern in item.runs for p in sorted(root.glob(pattern))]
    kept = [p for p in dict.fromkeys(found) if stored_exists(p / "metrics.csv")]
    missing = [p.relative_to(root).as_posix() for p in dict.fromkeys(found) if p not in kept]
    if item.runs:  # its scratch runs are the copies ``runs`` names
        return kept, missing
    return kept, missing + [run.replace(SCRATCH, "{scratch}") for run in trained if run.startswith(SCRATCH)]


def _hosts(run: Path) -> list[dict]:
    config = run / "config.json"
    return json.loads(config.read_text()).get("hosts", []) if config.exists() else []


def _cloning_seconds(run: Path) -> float:
    path = run / "behaviour_cloning.json"
    return sum(float(seed["wall_s"]) for seed in json.loads(path.read_text())) if path.exists() else 0.0


def run_hardware(item: Item, path: str) -> str:
    """What trained the run at ``path`` (under results/) when its config.json does not say."""
    for pattern, hardware in item.run_hardware.items():
        if fnmatch.fnmatch(path, pattern):
            return hardware
    return item.hardware


def _metrics(run: Path) -> tuple[list[tuple[int, float, float | None]], int]:
    """(iteration, wall_s, decisions or None) of each row of one seed of ``run``'s metrics.csv (plain or
    compressed; the seed of its first row: the seeds share each iteration's time) and how many seeds it has.
    csv.reader on the columns needed: the committed runs hold ~900k rows."""
    with open_csv(run / "metrics.csv") as f:
        reader = csv.reader(f)
        header = next(reader)
        iteration, seed, wall = (header.index(name) for name in ("iteration", "seed", "wall_s"))
        decisions = header.index("decisions") if "decisions" in header else None
        rows, seeds, first = [], set(), None
        for row in reader:
            seeds.add(row[seed])
            first = row[seed] if first is None else first
            if row[seed] == first:
                rows.append((int(row[iteration]), float(row[wall]),
                             float(row[decisions]) if decisions is not None else None))
    return rows, len(seeds)


def run_time(item: Item, run: Path, root: Path) -> RunTime:
    """``run``'s training seconds per hardware (split at each recorded session's first iteration), its
    iterations, seeds and first seed's decisions."""
    rows, seeds = _metrics(run)
    path = run.relative_to(root).as_posix()
    hosts = sorted(_hosts(run), key=lambda h: h.get("from_iteration", 0))
    starts = [h.get("from_iteration", 0) for h in hosts] or [0]
    names = [label(h) for h in hosts] or [run_hardware(item, path)]
    cloning = _cloning_seconds(run)
    seconds: dict[str, float] = {names[0]: cloning} if cloning else {}
    for iteration, wall_s, _ in rows:
        session = sum(iteration > start for start in starts[1:])
        seconds[names[session]] = seconds.get(names[session], 0.0) + wall_s
    decisions = sum(d for _, _, d in rows) if rows and rows[0][2] is not None else None
    return RunTime(path, seconds, max((i for i, _, _ in rows), default=0), seeds, decisions)


def item_timing(item: Item, root: Path) -> Timing:
    folders, missing = run_folders(item, root)
    return Timing(item, tuple(run_time(item, run, root) for run in folders), tuple(missing))


def timings(root: Path) -> dict[str, Timing]:
    """{item id: its timing} for every registered item, read from the files under ``root`` (results/)."""
    return {item.id: item_timing(item, Path(root)) for item in ITEMS}


def needs_closure(item: Item) -> list[str]:
    """The items ``item`` needs, and theirs, each once."""
    found: dict[str, None] = {}
    pending = list(item.needs)
    while pending:
        need = pending.pop(0)
        if need not in found:
            found[need] = None
            pending += BY_ID[need].needs
    return list(found)


def paper_key(item: Item) -> str | None:
    """The :data:`PAPER_BUDGETS` key ``item`` stands beside (None: no paper's budget applies)."""
    name = item.id.removeprefix("sweep_")
    return next((key for prefix, key in PAPER_OF if name.startswith(prefix)), None)


def _count(value: float) -> str:
    return f"{value / 1e6:.2f}M" if value >= 1e6 else (f"{value / 1e3:.0f}k" if value >= 1e3 else f"{value:.0f}")


def _spread(values: list, write=str) -> str:
    low, high = min(values), max(values)
    return write(low) if write(low) == write(high) else f"{write(low)}-{write(high)}"


def budget(timing: Timing) -> str:
    """The item's training budget: runs x seeds, iterations and decisions per seed (ranges over its runs)."""
    runs = timing.runs
    if not runs:
        return "no training run kept" if timing.missing else "no training run"
    seeds = _spread([r.seeds for r in runs])
    size = (f"{len(runs)} runs x " if len(runs) > 1 else "") + f"{seeds} seed{'' if seeds == '1' else 's'}"
    text = f"{size}, {_spread([r.iterations for r in runs])} it."
    decisions = [r.decisions for r in runs if r.decisions is not None]
    if decisions:
        text += f", {_spread(decisions, _count)} decisions per seed"
    return text + (f" (+{len(timing.missing)} runs not kept)" if timing.missing else "")


def training(timing: Timing) -> str:
    """The runs' training wall-clock per hardware, as their files record it."""
    seconds = timing.seconds()
    if not seconds:
        return "—"
    return " + ".join(f"{duration(s)} on {hardware}" for hardware, s in sorted(seconds.items(), key=lambda p: -p[1]))


def recorded(item: Item) -> str:
    text = duration(item.wall_s)
    return (f"~{text} (est.)" if item.estimate else text) + f" on {item.hardware}"


def verdict(timing: Timing, everything: dict[str, Timing]) -> tuple[bool | None, str]:
    """(fits, text): whether the item, after the items it needs, is remade within :data:`LIMIT_S` on the
    2-core CPU (None: not measured there), and how long it takes."""
    own = timing.cpu()
    if own is None:
        seconds = timing.seconds()
        elsewhere = {hardware: s for hardware, s in seconds.items() if hardware != CPU}
        took = ", ".join(f"{duration(s)} on {hardware}" for hardware, s in elsewhere.items()) or \
            f"{duration(timing.item.wall_s)} on {timing.item.hardware}"
        return None, f"not measured on the {CPU}: {took}" + (
            f"; its {CPU} runs {duration(seconds[CPU])}" if CPU in seconds else "")
    seconds, source = own
    text = ("~" if source == "estimate" else "") + duration(seconds)
    needs = needs_closure(timing.item)
    if needs:
        parts = {need: everything[need].cpu() for need in needs}
        unmeasured = [need for need, part in parts.items() if part is None]
        if unmeasured:
            return None, f"{text} itself, after {', '.join(unmeasured)} (not measured on the {CPU})"
        seconds += sum(part[0] for part in parts.values())
        text = f"{duration(seconds)} ({text} itself, after {', '.join(needs)})"
    fits = seconds <= LIMIT_S
    return fits, ("yes, " if fits else "no: ") + text


def table(root: Path) -> str:
    """``--timings``: one row per item, aligned columns."""
    everything = timings(root)
    rows = [("id", "training (runs' files)", "recorded (registry)", "budget", "paper's budget",
             f"within 3 h on the {CPU}")]
    for item_id, timing in everything.items():
        key = paper_key(timing.item)
        rows.append((item_id, training(timing), recorded(timing.item), budget(timing),
                     PAPER_BUDGETS[key].text(root) if key else "—", verdict(timing, everything)[1]))
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]) - 1)]
    lines = ["  ".join(row[c].ljust(widths[c]) for c in range(len(widths))) + "  " + row[-1] for row in rows]
    over = [t for t in everything.values() if verdict(t, everything)[0] is not True]
    lines += ["", f"{len(everything) - len(over)} of {len(everything)} items within 3 h on the {CPU}; over it or "
              f"not measured there: {', '.join(t.item.id for t in over)}"]
    return "\n".join(lines)


# The page's sections: the paper whose budget the items stand beside (None: no paper budget applies).
SECTIONS = (("deeprm", "DeepRM (Mao et al., HotNets'16)"), ("deeprm2", "DeepRM2"), ("deeprm_off", "DeepRM_Off"),
            ("bracis", "MDP design (BRACIS'21)"), ("cvd-rl", "VM placement (CVD-RL)"),
            ("grid", "Grid supervision (SARSA + ESN)"), (None, "Quick start, benches and trace-trained policies"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*")


def page(root: Path) -> str:
    """docs/results/timings.md: every item's time to result, grouped by the paper whose budget it stands beside."""
    everything = timings(root)
    verdicts = {item_id: verdict(timing, everything) for item_id, timing in everything.items()}
    over = [item_id for item_id, (fits, _) in verdicts.items() if fits is not True]
    lines = ["# Time to result", "",
             "<!-- generated from jaxsched/reproduction/ and the files under results/ by python -m jaxsched.reproduce "
             "--write-readme; edit the registry, not this page -->", "",
             f"The goal (issue 52): every result remade within 3 hours on the project's {CPU}. "
             f"{len(everything) - len(over)} of {len(everything)} items are; the table below lists the others. "
             "`python -m jaxsched.reproduce --timings` prints the same rows.", "",
             "- **training (runs' files)**: the wall-clock of the runs the item trains, from their files (metrics.csv "
             "`wall_s` over one seed's rows, the seeds being vmapped, plus behaviour_cloning.json), on the hardware "
             "their config.json records, or the registry's for runs older than that record;",
             "- **recorded (registry)**: the item's whole wall-clock as the registry records it (evaluation and "
             "studies included; ~ = estimate) and what measured it;",
             "- **budget**: runs x seeds, iterations and decisions per seed, from the runs' metrics.csv;",
             f"- **within 3 h**: the larger of the two on the {CPU}, with the items it needs first; an item with "
             f"runs only an accelerator trained has no {CPU} time to claim.", "",
             f"## Over 3 hours on the {CPU}, or not measured there", "",
             "| id | time to result |", "|---|---|"]
    lines += [f"| `{item_id}` | {_cell(verdicts[item_id][1])} |" for item_id in over]
    for key, title in SECTIONS:
        members = [t for t in everything.values() if paper_key(t.item) == key]
        if not members:
            continue
        lines += ["", f"## {title}", ""]
        if key is not None:
            paper = PAPER_BUDGETS[key]
            lines += [f"The paper's budget: **{paper.text(root)}**. Source: {_cell(paper.file)}.", ""]
        lines += [f"| id | training (runs' files) | recorded (registry) | budget | within 3 h on the {CPU} |",
                  "|---|---|---|---|---|"]
        lines += [f"| `{t.item.id}` | {_cell(training(t))} | {_cell(recorded(t.item))} | {_cell(budget(t))} | "
                  f"{_cell(verdicts[t.item.id][1])} |" for t in members]
    return "\n".join(lines) + "\n"
