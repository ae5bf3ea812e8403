"""Remake any committed result with one command: ``python -m jaxsched.reproduce ID``.

    python -m jaxsched.reproduce --list                 every item: id, paper figure, configs, wall-clock
    python -m jaxsched.reproduce --timings              every item's time to result: the wall-clock its runs' files
                                                        record, on which hardware, its budget beside the paper's,
                                                        and whether it fits in 3 h on the 2-core CPU
    python -m jaxsched.reproduce ID [ID ...] | all      run them into --out (default results/)
        [--quick]          a tiny form of every command (into runs/reproduce_quick/ unless --out)
        [--out DIR] [--scratch DIR] [--force] [--dry-run]
    python -m jaxsched.reproduce --write-readme         regenerate results/README.md's index section, the docs'
                                                        results index and time-to-result page (docs/results/
                                                        timings.md) and every quoted number of README.md,
                                                        results/README.md and the docs pages (docs/**/*.md)
    python -m jaxsched.reproduce --check-readme         exit 1 when a text and the files it cites disagree
    python -m jaxsched.reproduce --compact [PATH ...]   re-encode logs and figures the light way results/ keeps
                                                        them (:mod:`jaxsched.reproduction.compact`)

The items, their commands and outputs live in :mod:`jaxsched.reproduction`. An item whose outputs
all exist in the output folder is skipped (so ``all`` resumes where it stopped) unless ``--force``; an
item whose inputs are missing (a checkpoint of another item) runs that item first. results/ keeps no
checkpoints: an item that restores a sweep's cells (mdp_transfer_3m, mdp_swf_3m) is remade into a fresh
``--out``, where its sweeps train first (a sweep skips the finished cells results/ keeps). A training
run that was killed resumes from its last checkpoint; ``--force`` removes an item's run folders and
remakes them. Each command runs in its own process from the repository root.
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

from jaxsched.reproduction import numbers, timings
from jaxsched.reproduction.compact import compact
from jaxsched.core.runs import compress_csv, read_run_config, stored_exists
from jaxsched.errors import UsageError
from jaxsched.experiment import load_train_config
from jaxsched.reproduction import BY_ID, ITEMS, Item

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "results" / "README.md"
FRONT_README = ROOT / "README.md"
DOCS = ROOT / "docs"
DOCS_INDEX = DOCS / "results" / "index.md"  # generated from the registry (docs_results_index)
TIMINGS_PAGE = DOCS / "results" / "timings.md"  # generated from the registry and the runs' files (timings.page)
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
    return all(stored_exists(out / path) for path in item.outputs)


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
    missing = [path for path in (p.format(**places) for p in item.inputs) if not stored_exists(Path(path))]
    kept = [path for path in missing if _finished_sweep_cell(Path(path))]
    if kept:  # results/ keeps no checkpoints; remaking the sweep here would skip its finished cells
        message = (f"{item.id} restores the checkpoints of finished sweep cells, which {out} does not keep "
                   f"({', '.join(kept)}), and a sweep does not re-train a finished cell: remake it into a fresh "
                   f"folder, python -m jaxsched.reproduce {item.id} --out runs/{item.id}")
        if not dry_run:
            raise RuntimeError(message)
        print(f"note: {message}")
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
        if out.resolve() == RESULTS.resolve():
            compress_metrics(out, item)
        print(f"{item.id}: done in {time.perf_counter() - start:.0f} s", flush=True)


def _finished_sweep_cell(checkpoints: Path) -> bool:
    """Whether ``checkpoints`` is the (missing) checkpoint folder of a sweep cell that finished (its eval.json
    is there), as results/ keeps them: the sweep would skip the cell, not re-train it."""
    cell = checkpoints.parent
    return checkpoints.name == "checkpoints" and cell.parent.name == "cells" and (cell / "eval.json").exists()


def compress_metrics(out: Path, item: Item) -> list[Path]:
    """Compresses the ``metrics.csv`` files under ``item``'s output folders in ``out`` (committed results
    keep their training logs as ``metrics.csv.xz``: the same bytes, ~3.6x smaller; every reader opens
    either form)."""
    folders = dict.fromkeys((out / path).parent if "/" in path else out / path for path in item.outputs)
    found = sorted({csv for folder in folders if folder.is_dir() and folder != out for csv in folder.rglob("metrics.csv")})
    return [compress_csv(path) for path in found]


def list_items() -> str:
    rows = [("id", "paper table / figure", "configs", "wall-clock (2-core CPU)")]
    rows += [(i.id, i.paper, ", ".join(configs(i)), format_wall(i)) for i in ITEMS]
    widths = [max(len(r[c]) for r in rows) for c in range(3)]
    return "\n".join("  ".join(r[c].ljust(widths[c]) for c in range(3)) + "  " + r[3] for r in rows)


def _outputs_cell(item: Item) -> str:
    tops = dict.fromkeys(p.split("/")[0] + ("/" if "/" in p else "") for p in item.outputs)
    return ", ".join(f"`{t}`" for t in tops)


def headline(item: Item, root: Path | None = None) -> str:
    """``item``'s headline with its numbers read from the files under ``root`` (results/)."""
    return numbers.render(item.headline, item.numbers, root or README.parent)


def readme_section(root: Path | None = None) -> str:
    """The generated index of results/README.md, from :data:`ITEMS` and the files under ``root``."""
    lines = [BEGIN,
             "## Index: every item and the command that remakes it",
             "",
             "Generated from `jaxsched/reproduction/` by `python -m jaxsched.reproduce --write-readme`; "
             "edit the registry, not this section.",
             "`python -m jaxsched.reproduce ID` remakes an item into `results/` (`--quick`: a tiny form of every "
             "command, into `runs/reproduce_quick/`), `all` remakes every one and skips those whose outputs exist. "
             "Wall-clock on the project's 2-core CPU, from the runs' metadata or the sections below (~ = estimate).",
             "",
             "| id | stands for | outputs | wall-clock | headline |",
             "|---|---|---|---|---|"]
    lines += [f"| `{i.id}` | {i.paper} | {_outputs_cell(i)} | {format_wall(i)} | {headline(i, root)} |" for i in ITEMS]
    lines += ["", "<details><summary>The commands of every item</summary>", "", "```bash"]
    for item in ITEMS:
        lines.append(f"# {item.id}" + (f": {item.note}" if item.note else ""))
        for step in item.steps:
            argv = step.argv(str(RESULTS), str(SCRATCH))
            lines.append(("cp " + shlex.join(argv[1:])) if argv[0] == "copy" else "python -m " + shlex.join(argv))
    lines += ["```", "", "</details>", END]
    return "\n".join(lines)


def readme_with_section(text: str, root: Path | None = None) -> str:
    """``text`` with its generated section replaced (or inserted after the first paragraph after the title)."""
    section = readme_section(root)
    if BEGIN in text:
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        return pattern.sub(lambda _: section, text, count=1)
    head, sep, rest = text.partition("\n## ")
    return head.rstrip("\n") + "\n\n" + section + "\n\n" + (sep.lstrip("\n") + rest if sep else "")


def current_section(text: str) -> str | None:
    match = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    return match.group(0) if match else None


def _index_headlines(section: str) -> dict[str, str]:
    """{item id: the headline cell of its row} in a written index section."""
    found = {}
    for line in section.splitlines():
        match = re.match(r"\| `([^`]+)` \|.*\| (.*) \|$", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def _field(item_id: str, field: str) -> numbers.Number:
    if item_id not in BY_ID:
        raise numbers.NumberError(f"no result item {item_id!r}")
    if field not in BY_ID[item_id].numbers:
        raise numbers.NumberError(f"result item {item_id!r} has no number {field!r}")
    return BY_ID[item_id].numbers[field]


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def text_mismatches(text: str, name: str, root: Path) -> list[numbers.Mismatch]:
    """Every quoted number of ``text`` (the file ``name``) that differs from its file under ``root``: the
    index rows of results/README.md, ``<!--h:ID-->`` headlines and ``<!--n:ID.FIELD-->`` numbers."""
    wrong: list[numbers.Mismatch] = []
    section = current_section(text)
    if section is not None:
        rows = _index_headlines(section)
        for item in ITEMS:
            if item.id not in rows:
                wrong.append(numbers.Mismatch(f"{name} index", item.id, "registry", "(no row)", headline(item, root)))
                continue
            wrong += numbers.compare(f"{name} index row {item.id}", item.headline, item.numbers, rows[item.id], root)
    for match in numbers.HEADLINE.finditer(text):
        where = f"{name}:{_line(text, match.start())} headline {match.group('item')}"
        if match.group("item") not in BY_ID:
            wrong.append(numbers.Mismatch(where, "(item)", "registry", match.group("item"), "no such item"))
            continue
        item = BY_ID[match.group("item")]
        wrong += numbers.compare(where, item.headline, item.numbers, match.group("text"), root)
    for match in numbers.MARKER.finditer(text):
        where = f"{name}:{_line(text, match.start())} {match.group('item')}"
        try:
            number = _field(match.group("item"), match.group("field"))
            value = number.text(root)
        except numbers.NumberError as error:
            wrong.append(numbers.Mismatch(where, match.group("field"), "?", match.group("value"), f"unreadable: {error}"))
            continue
        if value != match.group("value"):
            wrong.append(numbers.Mismatch(where, match.group("field"), number.file, match.group("value"), value))
    wrong += numbers.file_marker_mismatches(text, name, root)
    return wrong


def with_numbers(text: str, root: Path) -> str:
    """``text`` with every ``<!--h:ID-->`` headline, ``<!--n:ID.FIELD-->`` and ``<!--f:FILE:PATH-->`` number
    written from the files."""
    text = numbers.HEADLINE.sub(lambda m: f"<!--h:{m.group('item')}-->{headline(BY_ID[m.group('item')], root)}<!--/h-->",
                                text)
    text = numbers.with_file_markers(text, root)
    return numbers.MARKER.sub(
        lambda m: _field(m.group("item"), m.group("field")).text(root) + f"<!--n:{m.group('item')}.{m.group('field')}-->",
        text)


def marked_texts() -> list[Path]:
    """The texts whose quoted numbers are checked: results/README.md, README.md and every docs page."""
    return [README, FRONT_README, *sorted(DOCS.rglob("*.md"))]


# the docs' results index groups the items by the family their id names ("sweep_" set aside)
FAMILY_PAGES = (("deeprm", "DeepRM, DeepRM2 and DeepRM_Off", "deeprm.md"), ("mdp", "MDP design", "mdp-design.md"),
                ("vm", "VM placement", "vm.md"), ("grid", "Grid supervision", "grid.md"), ("bench", "Speed", "speed.md"))


def item_family(item: Item) -> str:
    """The docs family of ``item``: the first of :data:`FAMILY_PAGES` its id (without ``sweep_``) starts with."""
    name = item.id.removeprefix("sweep_")
    for family, _, _ in FAMILY_PAGES:
        if name.startswith(family):
            return family
    return "other"


def _md_cell(text: str) -> str:
    """``text`` safe in a Markdown table cell rendered by MkDocs (no table breaks, emphasis or HTML)."""
    return text.replace("|", "\\|").replace("*", "\\*").replace("<", "&lt;").replace(">", "&gt;")


def docs_results_index(root: Path | None = None) -> str:
    """docs/results/index.md: every registry item, grouped by family, with what it reproduces, its headline
    read from the files under ``root`` and the command that remakes it."""
    lines = ["# Results index", "", "<!-- generated from jaxsched/reproduction/ by python -m jaxsched.reproduce "
             "--write-readme; edit the registry, not this page -->", "",
             f"{len(ITEMS)} items. Each headline is computed from the committed files under `results/`; "
             "`python -m jaxsched.reproduce ID` remakes an item (`--list` gives the configs and wall-clock of each, "
             "`--quick` a tiny form of its commands into `runs/reproduce_quick/`). Wall-clock on the project's "
             "2-core CPU (~ = estimate)."]
    groups = [*FAMILY_PAGES, ("other", "Other", "")]
    for family, title, page in groups:
        members = [i for i in ITEMS if item_family(i) == family]
        if not members:
            continue
        notes = f" (notes: [{title}]({page}))" if page else ""
        lines += ["", f"## {title}{notes}", "", "| id | reproduces | headline | wall-clock | command |",
                  "|---|---|---|---|---|"]
        lines += [f"| `{i.id}` | {_md_cell(i.paper)} | {_md_cell(headline(i, root))} | {format_wall(i)} | "
                  f"`python -m jaxsched.reproduce {i.id}` |" for i in members]
    return "\n".join(lines) + "\n"


def check_texts(root: Path | None = None) -> list[str]:
    """Every way README.md, results/README.md and the docs pages disagree with the registry and the files they
    cite (a generated index out of date included)."""
    root = root or README.parent
    problems: list[str] = []
    for path in marked_texts():
        text = path.read_text()
        problems += [str(m) for m in text_mismatches(text, path.relative_to(ROOT).as_posix(), root)]
    section = current_section(README.read_text())
    if not problems and section != readme_section(root):
        problems.append(f"{README.relative_to(ROOT)}: index section out of date (words or commands; --write-readme)")
    if not problems and (not DOCS_INDEX.exists() or DOCS_INDEX.read_text() != docs_results_index(root)):
        problems.append(f"{DOCS_INDEX.relative_to(ROOT)}: out of date with the registry (--write-readme)")
    if not problems and (not TIMINGS_PAGE.exists() or TIMINGS_PAGE.read_text() != timings.page(root)):
        problems.append(f"{TIMINGS_PAGE.relative_to(ROOT)}: out of date with the registry or the runs' files "
                        "(--write-readme)")
    return problems


def write_texts(root: Path | None = None) -> None:
    root = root or README.parent
    README.write_text(with_numbers(readme_with_section(README.read_text(), root), root))
    DOCS_INDEX.write_text(docs_results_index(root))
    TIMINGS_PAGE.write_text(timings.page(root))
    for path in marked_texts()[1:]:
        text = path.read_text()
        written = with_numbers(text, root)
        if written != text:
            path.write_text(written)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.reproduce", description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", metavar="ID", help="result ids (see --list), or all")
    parser.add_argument("--list", action="store_true", help="list every item")
    parser.add_argument("--timings", action="store_true",
                        help="every item's wall-clock, hardware and budget beside the paper's, and the 3 h verdict")
    parser.add_argument("--quick", action="store_true", help="tiny forms of the commands (a smoke test)")
    parser.add_argument("--out", type=Path, help="output folder (default results/, with --quick runs/reproduce_quick/)")
    parser.add_argument("--scratch", type=Path,
                        help="intermediate runs (default runs/reproduce_scratch/, with --quick OUT/scratch/)")
    parser.add_argument("--force", action="store_true", help="remake items whose outputs exist")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--compact", nargs="*", type=Path, metavar="PATH",
                        help="re-encode metrics logs and PNGs under PATH (default results/) the light way "
                             "(float32 digits, xz; palette PNGs)")
    parser.add_argument("--write-readme", action="store_true", help="regenerate the results indexes and every quoted number")
    parser.add_argument("--check-readme", action="store_true", help="exit 1 if a text or an index disagrees with its files")
    args = parser.parse_args(argv)
    if args.list:
        print(list_items())
        return 0
    if args.compact is not None:
        count, before, after = compact(args.compact or [RESULTS])
        print(f"compacted {count} files: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
        return 0
    if args.timings:
        print(timings.table(README.parent))
        return 0
    if not (ROOT / "configs").is_dir():
        print(f"error: reproduce runs from a source checkout; no configs/ next to the package ({ROOT})",
              file=sys.stderr)
        return 2
    if args.write_readme or args.check_readme:
        if args.check_readme:
            problems = check_texts()
            for problem in problems:
                print(problem)
            print(f"{README}, {FRONT_README.name} and {DOCS.name}/: " + (
                "every quoted number equals its file" if not problems else
                f"{len(problems)} disagreement(s) with the files they cite (fix the file or the text; --write-readme "
                "rewrites the numbers from the files)"))
            return 1 if problems else 0
        write_texts()
        print(f"wrote the index sections of {README}, {DOCS_INDEX.relative_to(ROOT)}, {TIMINGS_PAGE.relative_to(ROOT)} "
              f"and the quoted numbers of them, {FRONT_README.name} and the docs pages")
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
