"""Which of results/' checkpoints anything still reads: the map for a lighter clone (nothing is deleted).

    python -m jaxsched.studies.checkpoint_map [--results results] [--top 30] [--out MAP.md] [--json MAP.json]

The committed results/ keeps tables, figures and compressed metrics, no checkpoints (issue 55): the
registry's and the notebooks' one-seed readers of the DeepRM policies take the shipped ones
(``evaluate --pretrained``, ``withholding --pretrained``), and the items that restore other runs
(deeprm2_fig6_load0.7, mdp_transfer_3m*, mdp_swf_3m) name those checkpoints among their inputs, so that
``reproduce`` trains them first (the sweeps' into a fresh ``--out``). The map is for a results/ tree that holds checkpoints (an older clone,
a ``reproduce`` into results/): which of them can go.

Per run folder under results/ (a folder with ``config.json`` or ``metrics.csv``): the bytes of its orbax
checkpoints (all steps, and the steps older than the newest, which no reader restores: every reader takes
the newest intact one and none passes ``--from-step``) and of ``metrics.csv``; then who reads the checkpoints:

- a registry command (:mod:`jaxsched.reproduction`) of a module that restores checkpoints, one of whose
  arguments is the run's folder or a folder above it (``--runs``, ``--specialised``);
- a registry item whose ``outputs`` or ``inputs`` name the ``checkpoints`` folder (tests/test_reproduce.py
  requires outputs to exist; reproduce reruns an item whose input is missing);
- a notebook, test, doc or module that names the run's folder within three lines of a checkpoint reader
  (``--checkpoint``, ``load_run``, ``load_agents``, ...);
- the shipped policies (:mod:`jaxsched.pretrained`) exported from it.

A folder no reader of the first three kinds names is safe to delete now; a read one keeps only its newest
step, and can go once its readers load the shipped policy instead when they restore one seed only
(evaluate, withholding, swf_eval, a notebook) and that seed ships.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shlex
import sys
from pathlib import Path

from jaxsched import pretrained
from jaxsched.core.runs import compressed_path
from jaxsched.reproduction import ITEMS

ROOT = Path(__file__).resolve().parents[2]
RESTORES = re.compile(r"\b(load_run|load_policy)\(")  # what a module that restores checkpoints calls
SEED0_READERS = ("jaxsched.studies.withholding", "jaxsched.studies.swf_eval")  # load_policy: the first seed only
READS = re.compile(r"--checkpoint|--run\b|--runs\b|--specialised|load_run|load_policy|load_agents|Checkpointer"
                   r"|checkpoints")
SCANNED = ("notebooks/*.ipynb", "tests/*.py", "docs/**/*.md", "jaxsched/**/*.py", "configs/*.yaml", "README.md")
SCRATCH = "{scratch}"


@dataclasses.dataclass
class Run:
    """One run folder: sizes, steps and what reads its checkpoints."""

    path: str  # relative to the repository root
    checkpoint_bytes: int = 0
    older_step_bytes: int = 0
    metrics_bytes: int = 0
    seeds: int = 0  # the run's seeds (config.json)
    steps: list = dataclasses.field(default_factory=lambda: [])
    registry: list = dataclasses.field(default_factory=lambda: [])  # "item (module)"
    required: list = dataclasses.field(default_factory=lambda: [])  # items naming <run>/checkpoints
    mentions: list = dataclasses.field(default_factory=lambda: [])  # "file:line" near a checkpoint reader
    pretrained: list = dataclasses.field(default_factory=lambda: [])

    @property
    def read(self) -> bool:
        return bool(self.registry or self.required or self.mentions)

    @property
    def status(self) -> str:
        if not self.checkpoint_bytes:
            return "no checkpoints"
        if not self.read:
            return "safe to delete now"
        if self.coverable:
            return "read; droppable once its readers load jaxsched.pretrained"
        return "read: keep the newest step"

    @property
    def coverable(self) -> bool:
        """Read only by one-seed readers (a registry evaluate/withholding/swf_eval command, a notebook) of a
        seed that a shipped policy holds."""
        seeds = {int(re.search(r"seed (\d+)", p).group(1)) for p in self.pretrained}
        one_seed = all(any(r.endswith(f"({m.removeprefix('jaxsched.')})") for m in ("jaxsched.evaluate", *SEED0_READERS))
                       for r in self.registry)
        return (0 in seeds or self.seeds == len(seeds) > 0) and one_seed and not any(
            m.startswith("tests/") for m in self.mentions)


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def find_runs(results: Path) -> list[Run]:
    """Every run folder under ``results`` with its checkpoint and metrics.csv bytes."""
    folders = sorted({p.parent for name in ("config.json", "metrics.csv", "metrics.csv.xz") for p in results.rglob(name)
                      if "checkpoints" not in p.parts})
    runs = []
    for folder in folders:
        run = Run(folder.relative_to(results.parent).as_posix())
        stored = [folder / "metrics.csv", compressed_path(folder / "metrics.csv")]
        run.metrics_bytes = sum(p.stat().st_size for p in stored if p.exists())
        if (folder / "config.json").exists():
            run.seeds = len(json.loads((folder / "config.json").read_text())["config"].get("seeds", [0]))
        steps = sorted((int(p.name), _bytes(p)) for p in (folder / "checkpoints").glob("*") if p.name.isdigit())
        run.steps = [step for step, _ in steps]
        run.checkpoint_bytes = _bytes(folder / "checkpoints") if (folder / "checkpoints").exists() else 0
        run.older_step_bytes = sum(size for _, size in steps[:-1])
        runs.append(run)
    return runs


def _covers(argument: str, run: str, results: str) -> bool:
    """Whether a command argument (a path, ``label=path``, with ``{scratch}``) is ``run`` or a folder above it."""
    path = argument.split("=", 1)[1] if "=" in argument and "/" in argument.split("=", 1)[1] else argument
    path = path.rstrip("/")
    if path.startswith(SCRATCH):  # an item's intermediate runs: results/ keeps some under <item>/scratch/
        tail = path[len(SCRATCH):]
        return bool(tail) and (run.endswith(tail) or f"{tail}/" in run) and run.startswith(f"{results}/")
    inside = path.startswith(f"{results}/")  # not results/ itself (--results-dir {out})
    return inside and (run == path or run.startswith(path + "/"))


def restores(module: str) -> bool:
    """Whether the command module ``module`` restores checkpoints (calls load_run or load_policy)."""
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    return path.exists() and bool(RESTORES.search(path.read_text()))


def registry_readers(runs: list[Run], results: str) -> None:
    """Fills each run's ``registry`` (commands that restore it) and ``required`` (items naming its checkpoints)."""
    for item in ITEMS:
        for step in item.steps:
            argv = shlex.split(step.command.replace("{out}", results))
            if not restores(argv[0]):
                continue
            for run in runs:
                if any(_covers(a, run.path, results) for a in argv[1:] if not a.startswith("-")):
                    run.registry.append(f"{item.id} ({argv[0].removeprefix('jaxsched.')})")
        named = [p.replace("{out}", results) for p in item.inputs] + [f"{results}/{p}" for p in item.outputs]
        for run in runs:
            if any(_covers(p.removesuffix("/checkpoints"), run.path, results) and p.endswith("/checkpoints")
                   for p in named):
                run.required.append(item.id)
    for run in runs:
        run.registry = sorted(set(run.registry))
        run.required = sorted(set(run.required))


def text_mentions(runs: list[Run], root: Path, results: str) -> None:
    """Fills each run's ``mentions``: lines naming its folder (its path, or its top folder under results/ as
    one path part) within three lines of a checkpoint reader, outside the registry."""
    files = sorted({p for pattern in SCANNED for p in root.glob(pattern)} - {
        *(root / "jaxsched" / "reproduction").glob("*.py"), Path(__file__).resolve(),
        root / "tests" / "test_checkpoint_map.py"})  # the map's own test names runs of a results/ tree of its own
    texts = {p: p.read_text(errors="replace").splitlines() for p in files if p.is_file()}
    hits: dict[str, list[tuple[str, int, str]]] = {}  # top folder: (file, line number, line) near a reader
    for top in {run.path.split("/")[1] for run in runs if run.path.count("/")}:
        pattern, found = re.compile(rf"(?<![\w.-]){re.escape(top)}(?![\w.-])"), []
        for path, lines in texts.items():
            for number, line in enumerate(lines):
                if pattern.search(line) and READS.search("\n".join(lines[max(0, number - 3):number + 4])):
                    found.append((path.relative_to(root).as_posix(), number + 1, line))
        hits[top] = found
    for run in runs:
        parts = run.path.split("/")
        run.mentions = [f"{file}:{number}" for file, number, line in hits.get(parts[1] if len(parts) > 1 else "", ())
                        if _same_run(line, parts)]


def _same_run(line: str, parts: list[str]) -> bool:
    """A line naming a run's top folder names this run unless it names another folder below the top one."""
    below = re.search(rf"(?<![\w.-]){re.escape(parts[1])}(?:/|\"\s*/\s*\")([\w.=-]+)", line)
    return below is None or len(parts) < 3 or parts[2].startswith(below.group(1).rstrip("*")) or \
        below.group(1) in ("cells", "checkpoints")


def shipped_from(runs: list[Run]) -> None:
    by_path = {run.path: run for run in runs}
    for name in pretrained.list():
        entry = pretrained.record(name)
        if entry["source"] in by_path:
            by_path[entry["source"]].pretrained.append(f"{name} (seed {entry['seed']})")


def build_map(results: Path) -> list[Run]:
    results = results.resolve()
    root = results.parent
    runs = find_runs(results)
    registry_readers(runs, results.name)
    text_mentions(runs, root, results.name)
    shipped_from(runs)
    return runs


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


def _short(path: str, width: int = 70) -> str:
    return path if len(path) <= width else path[:width - 3] + "..."


def markdown(runs: list[Run], results: Path, top: int) -> str:
    total = _bytes(results)
    checkpoints = sum(r.checkpoint_bytes for r in runs)
    metrics = sum(r.metrics_bytes for r in runs)
    safe = [r for r in runs if r.status == "safe to delete now"]
    older = [r for r in runs if r.read and r.older_step_bytes]
    coverable = [r for r in runs if r.checkpoint_bytes and r.read and r.coverable]
    lines = [f"results/: {_mb(total)} MB on disk; orbax checkpoints {_mb(checkpoints)} MB in "
             f"{sum(bool(r.checkpoint_bytes) for r in runs)} runs; metrics.csv {_mb(metrics)} MB in "
             f"{sum(bool(r.metrics_bytes) for r in runs)} runs.",
             f"Safe to delete now: {_mb(sum(r.checkpoint_bytes for r in safe))} MB of checkpoints in {len(safe)} runs "
             f"(no registry command, item, notebook or test reads them), and {_mb(sum(r.older_step_bytes for r in older))}"
             f" MB of older steps in {len(older)} read runs (readers restore the newest step).", "",
             f"Top {top} run folders by checkpoint + metrics.csv bytes:", "",
             "| run folder | ckpt MB | older steps MB | metrics.csv MB | read by | pretrained | status |",
             "|---|---:|---:|---:|---|---|---|"]
    for run in sorted(runs, key=lambda r: -(r.checkpoint_bytes + r.metrics_bytes))[:top]:
        readers = run.registry + [f"{i} (needs it)" for i in run.required] + run.mentions
        lines.append(f"| {_short(run.path)} | {_mb(run.checkpoint_bytes)} | {_mb(run.older_step_bytes)} | "
                     f"{_mb(run.metrics_bytes)} | {'; '.join(readers) or '-'} | {'; '.join(run.pretrained) or '-'} | "
                     f"{run.status} |")
    lines += ["", "Checkpoint folders safe to delete now:", ""]
    lines += [f"- {run.path}/checkpoints ({_mb(run.checkpoint_bytes)} MB)" for run in safe]
    lines += ["", "Droppable once their readers load the shipped policy (jaxsched.pretrained) instead:", ""]
    lines += [f"- {run.path}/checkpoints ({_mb(run.checkpoint_bytes)} MB; {', '.join(run.pretrained)}; read by "
              f"{'; '.join(run.registry + run.mentions)}; named by the items {', '.join(run.required) or 'none'})"
              for run in coverable]
    lines += ["", "Older steps safe to delete now (the newest is kept):", ""]
    lines += [f"- {run.path}/checkpoints/{{{','.join(map(str, run.steps[:-1]))}}} ({_mb(run.older_step_bytes)} MB; "
              f"keep {run.steps[-1]})" for run in older]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.checkpoint_map", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, help="the folder to map, read only (default: the checkout's results/)")
    parser.add_argument("--top", type=int, default=30, help="rows of the table (default 30)")
    parser.add_argument("--out", type=Path, help="write the Markdown here (default: print it)")
    parser.add_argument("--json", type=Path, help="every run folder's row as JSON")
    args = parser.parse_args(argv)
    args.results = args.results or ROOT / "results"
    if not args.results.is_dir():
        print(f"error: {args.results} is not a folder", file=sys.stderr)
        return 2
    runs = build_map(args.results)
    text = markdown(runs, args.results.resolve(), args.top)
    if args.out:
        args.out.write_text(text)
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(r) | {"status": r.status} for r in runs], indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
