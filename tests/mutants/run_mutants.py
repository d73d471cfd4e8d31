#!/usr/bin/python3
"""A mutation run: does the suite catch these bugs? Not part of ctest; run it yourself (docs/testing.md, Mutants).

Usage: run_mutants.py SOURCE_DIR WORK_DIR [--catalogue FILE] [--only ID]... [--jobs N] [--link NAME=PATH]...
                      [--unit-only] [--results FILE] [--check]

Each mutant of the catalogue (tests/mutants/mutants.json unless --catalogue says otherwise) is a small edit of the
sources that looks like a real bug: one or more edits, each the exact text to find in a file (it must occur there
exactly once) and its replacement, a one-line reason, and the ctest names (regular expressions) of the tests
expected to kill it.

1. WORK_DIR/source becomes a copy of SOURCE_DIR as git sees it: the files git tracks, with their edits, and new
   files git does not ignore (so no build folder), committed to a git repository of its own (tests ask git what
   is tracked). Files already there and unchanged are left alone, so that a second run rebuilds only what
   changed. WORK_DIR/build is configured there once (Ninja when it is installed);
   each --link NAME=PATH makes WORK_DIR/build/NAME a link to PATH (ort and models, which some tests need).
2. The catalogue's unit_targets are built, and the unit tier (ctest -L unit) runs on the unmutated copy, then the
   mutants' named tests beyond it: the baseline. A test failing there cannot kill anything, and is named in the
   report.
3. For each mutant in turn: its edits are applied; a mutant whose text is missing is "not applicable" (the code
   it edits has changed: update the catalogue), one whose text occurs more than once is "ambiguous". The targets
   are built again (with the mutant's own "targets"; a build that fails is reported as such, never as a kill),
   the unit tier runs, then the mutant's named tests outside it (unless --unit-only). Every failing test is a
   killer. The edits are undone before the next mutant.
4. A table: each mutant, killed or survived, by which tests (the unit tier's first), and the time it took. With
   --results FILE, the same as JSON. The exit code is 0 when every mutant was killed, 1 otherwise.

--check reads the catalogue and says, for each mutant, whether its text occurs exactly once in SOURCE_DIR; it
builds nothing, and fails only on a malformed catalogue.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

HERE = pathlib.Path(__file__).resolve().parent


def fail(message):
    sys.exit(f"run_mutants.py: {message}")


# --- the catalogue ------------------------------------------------------------------------------------------------

def load_catalogue(path):
    """The catalogue, checked: every mutant has an id (unique), a reason, edits of file/find/replace, and tests."""
    try:
        catalogue = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as error:
        fail(f"{path}: {error}")
    problems = []
    if not isinstance(catalogue.get("unit_targets"), list):
        problems.append("unit_targets: a list of build targets is required")
    seen = set()
    for n, mutant in enumerate(catalogue.get("mutants", [])):
        where = f"mutants[{n}]"
        mutant_id = mutant.get("id")
        if not isinstance(mutant_id, str) or not re.fullmatch(r"[a-z0-9-]+", mutant_id):
            problems.append(f"{where}: id must be lower-case words joined by '-'")
        elif mutant_id in seen:
            problems.append(f"{where}: id {mutant_id} given twice")
        seen.add(mutant_id)
        if not isinstance(mutant.get("reason"), str) or not mutant["reason"]:
            problems.append(f"{where}: a one-line reason is required")
        edits = mutant.get("edits")
        if not isinstance(edits, list) or not edits:
            problems.append(f"{where}: edits must be a non-empty list")
            edits = []
        for k, edit in enumerate(edits):
            if not all(isinstance(edit.get(key), str) for key in ("file", "find", "replace")):
                problems.append(f"{where}.edits[{k}]: file, find and replace are required, as strings")
            elif not edit["find"] or edit["find"] == edit["replace"]:
                problems.append(f"{where}.edits[{k}]: find must be text that replace changes")
            elif edit["file"].startswith("/") or ".." in pathlib.PurePosixPath(edit["file"]).parts:
                problems.append(f"{where}.edits[{k}]: file must be a path inside the repository")
        tests = mutant.get("tests")
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            problems.append(f"{where}: tests must be a list of ctest name patterns")
        else:
            for pattern in tests:
                try:
                    re.compile(pattern)
                except re.error as error:
                    problems.append(f"{where}: test pattern {pattern!r}: {error}")
        targets = mutant.get("targets", [])
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            problems.append(f"{where}: targets must be a list of build targets")
    if not catalogue.get("mutants"):
        problems.append("mutants: the list is empty")
    if problems:
        fail(f"{path}: " + "; ".join(problems))
    return catalogue


def mutated_texts(source, mutant):
    """The edited files' new texts, the edits applied in turn, and 'ok'; or 'not applicable' / 'ambiguous' with the
    file whose text is missing or repeated (and no texts)."""
    texts = {}
    for edit in mutant["edits"]:
        if edit["file"] not in texts:
            path = source / edit["file"]
            texts[edit["file"]] = path.read_text() if path.is_file() else ""
        found = texts[edit["file"]].count(edit["find"])
        if found == 0:
            return {}, "not applicable", f"{edit['file']}: its text is not there"
        if found > 1:
            return {}, "ambiguous", f"{edit['file']}: its text occurs {found} times"
        texts[edit["file"]] = texts[edit["file"]].replace(edit["find"], edit["replace"])
    return texts, "ok", ""


# --- the scratch copy and its build --------------------------------------------------------------------------------

def run(command, cwd=None, log=None):
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log is not None:
        log.write(f"$ {' '.join(str(c) for c in command)}\n{result.stdout}\n")
        log.flush()
    return result


def checkout_files(source):
    """What git sees in `source`: tracked files (with their edits; deleted ones left out) and new unignored ones."""
    result = run(["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    if result.returncode != 0:
        fail(f"{source} is not a git checkout: {result.stdout.strip()}")
    names = sorted(set(name for name in result.stdout.split("\0") if name))
    return [name for name in names if (source / name).is_file() or (source / name).is_symlink()]


def sync_copy(source, copy):
    """Makes `copy` hold exactly the checkout's files, writing only those that differ (their times then change)."""
    wanted = set(checkout_files(source))
    copy.mkdir(parents=True, exist_ok=True)
    for folder, dirs, files in os.walk(copy):
        if pathlib.Path(folder) == copy and ".git" in dirs:
            dirs.remove(".git")
        for name in files:
            relative = str((pathlib.Path(folder) / name).relative_to(copy))
            if relative not in wanted:
                (pathlib.Path(folder) / name).unlink()
    for name in sorted(wanted):
        origin, target = source / name, copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_symlink():
            if not target.is_symlink() or os.readlink(target) != os.readlink(origin):
                if target.exists() or target.is_symlink():
                    target.unlink()
                os.symlink(os.readlink(origin), target)
            continue
        if target.is_file() and not target.is_symlink() and target.read_bytes() == origin.read_bytes():
            continue
        if target.is_symlink():
            target.unlink()
        shutil.copy2(origin, target)
    # The copy is a git checkout of those files, as the source is: tests that ask git what is tracked see them.
    git = ["git", "-C", str(copy), "-c", "user.name=run_mutants", "-c", "user.email=run_mutants@localhost"]
    if not (copy / ".git").exists() and run(git + ["init", "-q"]).returncode != 0:
        fail(f"git init in {copy} failed")
    run(git + ["add", "-A"])
    if run(git + ["diff", "--cached", "--quiet"]).returncode != 0:
        if run(git + ["commit", "-q", "-m", f"the files of {source}"]).returncode != 0:
            fail(f"git commit in {copy} failed")


def configure(copy, build, links, log):
    build.mkdir(parents=True, exist_ok=True)
    for name, path in links:
        link = build / name
        if link.is_symlink() or link.exists():
            if link.is_symlink() and os.readlink(link) == str(path):
                continue
            fail(f"{link} exists and is not a link to {path}")
        os.symlink(path, link)
    if (build / "CMakeCache.txt").exists():
        return
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    result = run(["cmake", "-S", str(copy), "-B", str(build), *generator], log=log)
    if result.returncode != 0:
        fail(f"configuring the scratch copy failed; see {log.name}")


def build_targets(build, targets, jobs, log):
    if not targets:
        return True
    return run(["cmake", "--build", str(build), "--parallel", str(jobs), "--target", *targets], log=log).returncode == 0


def ctest(build, arguments, jobs, log, junit):
    """The names of the tests that ran and of those that failed (timeouts included; a test skipped or not run is
    no failure)."""
    if junit.exists():
        junit.unlink()
    run(["ctest", "--test-dir", str(build), "-j", str(jobs), "--timeout", "600", "--output-on-failure", "--output-junit", str(junit),
         *arguments], log=log)
    ran, failed = [], []
    if not junit.exists():
        return ran, failed
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        name = re.sub(r"\s+#.*", "", case.get("name"))  # a parameterized test's "  # GetParam() = ..."
        ran.append(name)
        if case.get("status") == "fail" or case.find("failure") is not None:
            failed.append(name)
    return ran, failed


# --- one mutant ---------------------------------------------------------------------------------------------------

def apply_edits(copy, texts):
    """Writes the mutated texts; returns the original ones, to undo them."""
    originals = {name: (copy / name).read_text() for name in texts}
    for name, text in texts.items():
        (copy / name).write_text(text)
    return originals


def undo_edits(copy, originals):
    for name, text in originals.items():
        (copy / name).write_text(text)


def run_mutant(args, copy, build, catalogue, mutant, baseline_failures, log):
    started = time.monotonic()
    result = {"id": mutant["id"], "reason": mutant["reason"], "status": "", "note": "", "unit_killers": [],
              "other_killers": [], "expected_not_failing": [], "seconds": 0}
    texts, status, note = mutated_texts(copy, mutant)
    if status != "ok":
        result.update(status=status, note=note)
        return result
    originals = apply_edits(copy, texts)
    try:
        targets = list(dict.fromkeys(catalogue["unit_targets"] + mutant.get("targets", [])))
        if not build_targets(build, targets, args.jobs, log):
            result.update(status="build failed", note="the mutant does not build (WORK_DIR/run.log says why)")
            return result
        junit = args.work / "ctest.xml"
        _, unit_failed = ctest(build, ["-L", "unit"], args.jobs, log, junit)
        other_failed = []
        if mutant["tests"] and not args.unit_only:
            _, other_failed = ctest(build, ["-LE", "unit", "-R", "|".join(f"({p})" for p in mutant["tests"])],
                                    args.jobs, log, junit)
        result["unit_killers"] = sorted(set(unit_failed) - baseline_failures)
        result["other_killers"] = sorted(set(other_failed) - baseline_failures)
        killers = result["unit_killers"] + result["other_killers"]
        result["expected_not_failing"] = [p for p in mutant["tests"] if not any(re.findall(p, k) for k in killers)]
        result["status"] = "killed" if killers else "survived"
    finally:
        undo_edits(copy, originals)
        result["seconds"] = round(time.monotonic() - started)
    return result


# --- the report ---------------------------------------------------------------------------------------------------

def killers_text(result, most=4):
    def short(names):
        return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
    parts = []
    if result["unit_killers"]:
        parts.append(f"unit: {short(result['unit_killers'])}")
    if result["other_killers"]:
        parts.append(f"other: {short(result['other_killers'])}")
    return "; ".join(parts) or result["note"] or "nothing"


def report(results, baseline_failures, seconds):
    lines = ["| mutant | result | killed by | time |", "| --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| `{r['id']}` | {r['status']} | {killers_text(r)} | {r['seconds']} s |")
    killed = sum(r["status"] == "killed" for r in results)
    by_unit = sum(bool(r["unit_killers"]) for r in results)
    lines.append("")
    lines.append(f"{len(results)} mutants: {killed} killed ({by_unit} by the unit tier), "
                 f"{len(results) - killed} not; {seconds // 60} min {seconds % 60} s in all.")
    if baseline_failures:
        lines.append("Failing before any mutant (left out of the kills): " + ", ".join(sorted(baseline_failures)))
    for r in results:
        if r["status"] == "killed" and r["expected_not_failing"]:
            lines.append(f"{r['id']}: the named tests {', '.join(r['expected_not_failing'])} did not fail")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=pathlib.Path)
    parser.add_argument("work", type=pathlib.Path)
    parser.add_argument("--catalogue", type=pathlib.Path, default=HERE / "mutants.json")
    parser.add_argument("--only", action="append", default=[], help="run this mutant (repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--link", action="append", default=[], help="NAME=PATH: a link in the scratch build folder")
    parser.add_argument("--unit-only", action="store_true", help="run the unit tier only, not the named tests beyond it")
    parser.add_argument("--results", type=pathlib.Path, help="write the results as JSON here")
    parser.add_argument("--check", action="store_true", help="check the catalogue against SOURCE_DIR; build nothing")
    args = parser.parse_args()
    args.source = args.source.resolve()
    args.work = args.work.resolve()
    catalogue = load_catalogue(args.catalogue)
    mutants = catalogue["mutants"]
    if args.only:
        unknown = set(args.only) - {m["id"] for m in mutants}
        if unknown:
            fail("no such mutant: " + ", ".join(sorted(unknown)))
        mutants = [m for m in mutants if m["id"] in args.only]
    if args.check:
        for mutant in mutants:
            _, status, note = mutated_texts(args.source, mutant)
            print(f"{mutant['id']}: {status}" + (f" ({note})" if note else ""))
        return 0
    links = []
    for item in args.link:
        name, _, path = item.partition("=")
        if not name or not path or "/" in name:
            fail(f"--link {item}: NAME=PATH, NAME a file name")
        links.append((name, pathlib.Path(path).resolve()))
    if args.work == args.source or (args.source in args.work.parents and
                                    not args.work.relative_to(args.source).parts[0].startswith("build")):
        fail("WORK_DIR must be outside the checkout, or inside a build* folder of it (which git ignores)")

    started = time.monotonic()
    copy, build = args.work / "source", args.work / "build"
    args.work.mkdir(parents=True, exist_ok=True)
    with open(args.work / "run.log", "w") as log:
        print(f"copying {args.source} to {copy}", flush=True)
        sync_copy(args.source, copy)
        configure(copy, build, links, log)
        print(f"building {', '.join(catalogue['unit_targets']) or 'nothing'} and running the unit tier unmutated", flush=True)
        if not build_targets(build, catalogue["unit_targets"], args.jobs, log):
            fail(f"the unmutated copy does not build; see {log.name}")
        ran, failed = ctest(build, ["-L", "unit"], args.jobs, log, args.work / "ctest.xml")
        if not ran:
            fail(f"the unit tier ran no test; see {log.name}")
        baseline_failures = set(failed)
        # The named tests beyond the unit tier, unmutated too.
        named = [p for m in mutants for p in m["tests"]]
        if named and not args.unit_only:
            print("running the named tests beyond the unit tier unmutated", flush=True)
            targets = list(dict.fromkeys(t for m in mutants for t in m.get("targets", [])))
            if not build_targets(build, catalogue["unit_targets"] + targets, args.jobs, log):
                fail(f"the unmutated copy does not build; see {log.name}")
            _, failed = ctest(build, ["-LE", "unit", "-R", "|".join(f"({p})" for p in named)], args.jobs, log,
                              args.work / "ctest.xml")
            baseline_failures |= set(failed)
        if baseline_failures:
            print("failing before any mutant: " + ", ".join(sorted(baseline_failures)), flush=True)
        results = []
        for mutant in mutants:
            print(f"{mutant['id']}: {mutant['reason']} ...", flush=True)
            result = run_mutant(args, copy, build, catalogue, mutant, baseline_failures, log)
            print(f"  {result['status']}: {killers_text(result, most=8)} ({result['seconds']} s)", flush=True)
            results.append(result)
    seconds = round(time.monotonic() - started)
    print()
    print(report(results, baseline_failures, seconds))
    if args.results:
        args.results.write_text(json.dumps({"seconds": seconds, "baseline_failures": sorted(baseline_failures),
                                            "mutants": results}, indent=1) + "\n")
    return 0 if all(r["status"] == "killed" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
