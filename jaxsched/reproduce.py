"""Remake any committed result with one command: ``python -m jaxsched.reproduce ID``.

    python -m jaxsched.reproduce --list                 every item: id, paper figure, configs, wall-clock
    python -m jaxsched.reproduce ID [ID ...] | all      run them into --out (default results/)
        [--quick]          a tiny form of every command (into runs/reproduce_quick/ unless --out)
        [--out DIR] [--scratch DIR] [--force] [--dry-run]
    python -m jaxsched.reproduce --write-readme         regenerate results/README.md's index section
    python -m jaxsched.reproduce --check-readme         exit 1 when that section is out of date

The items, their commands and outputs live in :mod:`jaxsched.results_registry`. An item whose outputs
all exist in the output folder is skipped (so ``all`` resumes where it stopped) unless ``--force``; an
item whose inputs are missing (a checkpoint of another item) runs that item first. A training run that
was killed resumes from its last checkpoint; ``--force`` removes an item's run folders and remakes
them. Each command runs in its own process from the repository root.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from jaxsched.core.runs import read_run_config
from jaxsched.errors import UsageError
from jaxsched.experiment import load_train_config
from jaxsched.results_registry import BY_ID, ITEMS, Item

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "results" / "README.md"
BEGIN = "<!-- reproduce:begin -->"
END = "<!-- reproduce:end -->"
RESULTS, QUICK_OUT, SCRATCH = Path("results"), Path("runs/reproduce_quick"), Path("runs/reproduce_scratch")


def format_wall(item: Item) -> str:
    seconds = item.wall_s
    text = f"{seconds / 3600:.1f} h" if seconds >= 3600 else (
        f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s")
    return f"~{text} (est.)" if item.estimate else text


def configs(item: Item) -> list[str]:
    """The configs/ files the item's commands train from, else the commands' modules."""
    found = []
    for step in item.steps:
        found += [p for p in shlex.split(step.command) if p.startswith("configs/") and p not in found]
    if found:
        return found
    modules = [shlex.split(s.command)[0].removeprefix("jaxsched.") for s in item.steps]
    return list(dict.fromkeys(m for m in modules if m != "copy"))


def select(ids: list[str]) -> list[Item]:
    if ids == ["all"]:
        return list(ITEMS)
    unknown = [i for i in ids if i not in BY_ID]
    if unknown:
        raise UsageError(f"unknown result id {', '.join(unknown)} (python -m jaxsched.reproduce --list)")
    return [BY_ID[i] for i in ids]


def is_done(item: Item, out: Path) -> bool:
    return all((out / path).exists() for path in item.outputs)


def _iterations(argv: list[str]) -> int:
    """The iterations a train command asks for: its last ``iterations=N``, else its config's."""
    given = [a.split("=", 1)[1] for a in argv if a.startswith("iterations=")]
    if given:
        return int(given[-1])
    return load_train_config(ROOT / argv[argv.index("--config") + 1]).iterations


def _train_step(argv: list[str], force: bool) -> list[str] | None:
    """A train command whose run folder already holds a run: None when that run got at least as far
    (finished, evaluated); else the command as a ``--resume`` of it, so a killed item continues from its
    last checkpoint. ``--force`` removes the folder instead (a remake); a run killed before its first
    checkpoint is removed too."""
    flag = "--resume" if "--resume" in argv else "--out"
    run = Path(argv[argv.index(flag) + 1])
    saved = run / "config.json"
    if not saved.exists():
        return argv
    if flag == "--out" and force:
        shutil.rmtree(run)
        return argv
    done = read_run_config(run)["iterations"]
    if (run / "eval.json").exists() and done >= _iterations(argv):
        return None
    if flag == "--resume":
        return argv
    if not any((run / "checkpoints").glob("*")):
        shutil.rmtree(run)
        return argv
    return [a if a != "--out" else "--resume" for a in argv]


def _run_step(argv: list[str], force: bool, dry_run: bool) -> None:
    if argv[0] == "jaxsched.train" and not dry_run:
        prepared = _train_step(argv, force)
        if prepared is None:
            print(f"  (done already: python -m {shlex.join(argv)})", flush=True)
            return
        argv = prepared
    print("  $ " + ("python -m " if argv[0] != "copy" else "") + shlex.join(argv), flush=True)
    if dry_run:
        return
    if argv[0] == "copy":  # kept once made: a resumed item must not copy a later file over it
        if Path(argv[2]).exists() and not force:
            return
        Path(argv[2]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(argv[1], argv[2])
        return
    done = subprocess.run([sys.executable, "-m", *argv], cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"command failed (exit {done.returncode}): python -m {shlex.join(argv)}")


def run_item(item: Item, out: Path, scratch: Path, quick: bool, force: bool, dry_run: bool, ran: set) -> None:
    """Runs ``item`` (its missing inputs' items first) unless its outputs exist or it ran already."""
    if item.id in ran:
        return
    if not force and is_done(item, out):
        print(f"{item.id}: outputs exist in {out}, skipped (--force to remake)")
        return
    places = {"out": str(out), "scratch": str(scratch)}
    missing = [path for path in (p.format(**places) for p in item.inputs) if not Path(path).exists()]
    if missing:
        print(f"{item.id}: needs {', '.join(missing)}; making {', '.join(item.needs)} first")
        for need in item.needs:
            run_item(BY_ID[need], out, scratch, quick, True, dry_run, ran)
    print(f"{item.id} ({item.paper}; expected {format_wall(item)}{', quick form' if quick else ''})", flush=True)
    start = time.perf_counter()
    for step in item.steps:
        _run_step(step.argv(str(out), str(scratch), quick), force, dry_run)
    ran.add(item.id)
    if not dry_run:
        print(f"{item.id}: done in {time.perf_counter() - start:.0f} s", flush=True)


def list_items() -> str:
    rows = [("id", "paper table / figure", "configs", "wall-clock (2-core CPU)")]
    rows += [(i.id, i.paper, ", ".join(configs(i)), format_wall(i)) for i in ITEMS]
    widths = [max(len(r[c]) for r in rows) for c in range(3)]
    return "\n".join("  ".join(r[c].ljust(widths[c]) for c in range(3)) + "  " + r[3] for r in rows)


def _outputs_cell(item: Item) -> str:
    tops = dict.fromkeys(p.split("/")[0] + ("/" if "/" in p else "") for p in item.outputs)
    return ", ".join(f"`{t}`" for t in tops)


def readme_section() -> str:
    """The generated index of results/README.md, from :data:`ITEMS`."""
    lines = [BEGIN,
             "## Index: every item and the command that remakes it",
             "",
             "Generated from `jaxsched/results_registry.py` by `python -m jaxsched.reproduce --write-readme`; "
             "edit the registry, not this section.",
             "`python -m jaxsched.reproduce ID` remakes an item into `results/` (`--quick`: a tiny form of every "
             "command, into `runs/reproduce_quick/`), `all` remakes every one and skips those whose outputs exist. "
             "Wall-clock on the project's 2-core CPU, from the runs' metadata or the sections below (~ = estimate).",
             "",
             "| id | stands for | outputs | wall-clock | headline |",
             "|---|---|---|---|---|"]
    lines += [f"| `{i.id}` | {i.paper} | {_outputs_cell(i)} | {format_wall(i)} | {i.headline} |" for i in ITEMS]
    lines += ["", "<details><summary>The commands of every item</summary>", "", "```bash"]
    for item in ITEMS:
        lines.append(f"# {item.id}" + (f": {item.note}" if item.note else ""))
        for step in item.steps:
            argv = step.argv(str(RESULTS), str(SCRATCH))
            lines.append(("cp " + shlex.join(argv[1:])) if argv[0] == "copy" else "python -m " + shlex.join(argv))
    lines += ["```", "", "</details>", END]
    return "\n".join(lines)


def readme_with_section(text: str) -> str:
    """``text`` with its generated section replaced (or inserted after the first paragraph after the title)."""
    section = readme_section()
    if BEGIN in text:
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        return pattern.sub(lambda _: section, text, count=1)
    head, sep, rest = text.partition("\n## ")
    return head.rstrip("\n") + "\n\n" + section + "\n\n" + (sep.lstrip("\n") + rest if sep else "")


def current_section(text: str) -> str | None:
    match = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    return match.group(0) if match else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.reproduce", description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", metavar="ID", help="result ids (see --list), or all")
    parser.add_argument("--list", action="store_true", help="list every item")
    parser.add_argument("--quick", action="store_true", help="tiny forms of the commands (a smoke test)")
    parser.add_argument("--out", type=Path, help="output folder (default results/, with --quick runs/reproduce_quick/)")
    parser.add_argument("--scratch", type=Path,
                        help="intermediate runs (default runs/reproduce_scratch/, with --quick OUT/scratch/)")
    parser.add_argument("--force", action="store_true", help="remake items whose outputs exist")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--write-readme", action="store_true", help="regenerate results/README.md's index section")
    parser.add_argument("--check-readme", action="store_true", help="exit 1 if that section is out of date")
    args = parser.parse_args(argv)
    if args.list:
        print(list_items())
        return 0
    if not (ROOT / "configs").is_dir():
        print(f"error: reproduce runs from a source checkout; no configs/ next to the package ({ROOT})",
              file=sys.stderr)
        return 2
    if args.write_readme or args.check_readme:
        text = README.read_text()
        if args.check_readme:
            fresh = current_section(text) == readme_section()
            print(f"{README}: index section {'up to date' if fresh else 'out of date (--write-readme)'}")
            return 0 if fresh else 1
        README.write_text(readme_with_section(text))
        print(f"wrote the index section of {README}")
        return 0
    if not args.ids:
        parser.print_usage(sys.stderr)
        print("error: give result ids (python -m jaxsched.reproduce --list), all, or --list", file=sys.stderr)
        return 2
    try:
        items = select(args.ids)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = (args.out or (QUICK_OUT if args.quick else RESULTS)).resolve()
    scratch = (args.scratch or (out / "scratch" if args.quick else SCRATCH)).resolve()
    if args.quick and out == (ROOT / RESULTS).resolve():
        print("error: --quick writes tiny stand-ins; it never writes into results/ (give another --out)",
              file=sys.stderr)
        return 2
    ran: set = set()
    try:
        for item in items:
            run_item(item, out, scratch, args.quick, args.force, args.dry_run, ran)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
