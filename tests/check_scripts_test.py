#!/usr/bin/python3
"""The checkers of the documentation and the schema see the repository as git does, not as a reader left it.

Usage: check_scripts_test.py SOURCE_DIR WORK_DIR   (Debian's /usr/bin/python3, with python3-jsonschema, and git)

- check_docs.py's copy of the checkout holds the files git tracks, with their edits, and nothing else: not an
  `out/` or a `tour.c` that following the README once left in the checkout, nor a `build2/` or `build-x/` folder.
- A README session that writes outside build/ fails, naming what it left; one that writes under build/ passes.
- check_schema.py skips an import report in specs/ (as kernelgen and kernelgen_add_kernels() do), and checks it
  against the report's schema instead.
- tests/mutants/run_mutants.py, on a toy project: a mutant the unit tier kills, one only a named test beyond it
  kills, one nothing kills, one whose text is gone and one whose text occurs twice are each reported as such, the
  edits undone; and the real catalogue, tests/mutants/mutants.json, is well formed.
"""
import json
import pathlib
import shutil
import subprocess
import sys

SOURCE = pathlib.Path(sys.argv[1]).resolve()
WORK = pathlib.Path(sys.argv[2]).resolve()
TESTS = SOURCE / "tests"
sys.path.insert(0, str(TESTS))
import check_docs  # noqa: E402

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def run(*command, cwd=None):
    return subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def git_checkout(folder, files):
    """A git repository in `folder` whose committed files are `files` (path: text)."""
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    for command in (["init", "-q"], ["add", "-A"],
                    ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "files"]):
        result = run("git", "-C", str(folder), *command)
        if result.returncode != 0:
            sys.exit(f"git {' '.join(command)} failed: {result.stdout}")


def readme(*lines):
    return "# page\n\n```console\n" + "\n".join(lines) + "\n```\n"


if WORK.exists():
    shutil.rmtree(WORK)
build = WORK / "build-dir"
build.mkdir(parents=True)

# --- the copy: tracked files only, edits included ----------------------------------------------------------------
checkout = WORK / "checkout"
git_checkout(checkout, {".gitignore": "/build*/\n", "README.md": "", "docs/page.md": "old\n", "gone.txt": "x\n"})
(checkout / "README.md").write_text(readme("$ LC_ALL=C ls -A", ".gitignore", "README.md", "build", "docs", "$ cat docs/page.md",
                                           "edited"))
(checkout / "docs/page.md").write_text("edited\n")  # an edit not committed yet: the copy has it
(checkout / "gone.txt").unlink()                   # tracked, deleted in the working tree
for left in ("out/token_embedding.c", "tour.c", "build2/big.o", "build-x/y.o", "buildings/z.txt"):
    (checkout / left).parent.mkdir(parents=True, exist_ok=True)
    (checkout / left).write_text("left by a reader\n")
result = run(sys.executable, str(TESTS / "check_docs.py"), "run", str(checkout), str(build), str(WORK / "docs"), "README.md")
expect(result.returncode == 0, "the copy of a checkout holds what a reader left in it:\n" + result.stdout)

# --- the README leaves the checkout as it was --------------------------------------------------------------------
for name, lines, clean in [
        ("writes_under_build", ["$ mkdir -p build/tour && echo x > build/tour/k.c && cat build/tour/k.c", "x"], True),
        ("writes_out", ["$ mkdir -p out && echo x > out/k.c"], False),
        ("edits_a_file", ["$ echo more >> docs/page.md"], False)]:
    page = WORK / name
    git_checkout(page, {"README.md": readme(*lines), "docs/page.md": "text\n"})
    result = run(sys.executable, str(TESTS / "check_docs.py"), "run", str(page), str(build), str(WORK / "docs"),
                 "README.md")
    if clean:
        expect(result.returncode == 0, f"{name}: a README session writing under build/ fails:\n{result.stdout}")
    else:
        expect(result.returncode != 0 and "would leave these in the checkout" in result.stdout,
               f"{name}: a README session that writes into the checkout passes:\n{result.stdout}")
expect("out, out/k.c" in run(sys.executable, str(TESTS / "check_docs.py"), "run", str(WORK / "writes_out"), str(build),
                             str(WORK / "docs"), "README.md").stdout, "the message does not name out/k.c")

# --- the schema test: an import report in specs/ -----------------------------------------------------------------
copy = WORK / "schema_source"
copy.mkdir()
check_docs.copy_checkout(SOURCE, copy)
report = {"kernelgen_import_report": 1, "model": "decoder.onnx", "generator": "kernelgen 0.2.0", "dims": {"batch": 1},
          "inputs": {}, "inference": "ran", "rounds": 2,
          "summary": {"specs": 0, "specs_in_subgraphs": 0, "bounded": 0, "folded": 1, "views": 0, "skipped": 0,
                      "not_run": 0},
          "nodes": [{"path": "/Gather", "graph": "", "position": 4, "name": "/Gather", "op": "Gather", "folded": 8,
                     "dtype": "int64", "shape": []}]}
(copy / "specs" / "decoder.import.json").write_text(json.dumps(report))
result = run(sys.executable, str(TESTS / "check_schema.py"), str(copy))
expect(result.returncode == 0 and "1 import reports" in result.stdout,
       "check_schema.py refuses an import report in specs/:\n" + result.stdout)
del report["rounds"]
(copy / "specs" / "decoder.import.json").write_text(json.dumps(report))
result = run(sys.executable, str(TESTS / "check_schema.py"), str(copy))
expect(result.returncode != 0 and "specs/decoder.import.json" in result.stdout,
       "check_schema.py does not check an import report against its schema:\n" + result.stdout)

# --- the mutation run: a toy project, one test in the unit tier and one beyond it ------------------------------------
mutants = TESTS / "mutants" / "run_mutants.py"
toy = WORK / "mutants_toy"
git_checkout(toy, {
    ".gitignore": "/build*/\n",
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(toy NONE)\nenable_testing()\n"
                      "foreach(name IN ITEMS value other)\n"
                      "  add_test(NAME ${name}_is_good COMMAND ${CMAKE_COMMAND} -DFILE=${CMAKE_SOURCE_DIR}/${name}.txt\n"
                      "           -P ${CMAKE_SOURCE_DIR}/check.cmake)\n"
                      "endforeach()\n"
                      "set_tests_properties(value_is_good PROPERTIES LABELS unit)\n"
                      "set_tests_properties(other_is_good PROPERTIES LABELS slow)\n",
    "check.cmake": 'file(READ "${FILE}" text)\nif(NOT text MATCHES "good")\n  message(FATAL_ERROR "${FILE}: ${text}")\nendif()\n',
    "value.txt": "good\n", "other.txt": "good\n", "notes.txt": "nothing tests this\n"})
edit = lambda file, find, replace: [{"file": file, "find": find, "replace": replace}]  # noqa: E731
catalogue = {"unit_targets": [], "mutants": [
    {"id": "unit-kills", "reason": "r", "edits": edit("value.txt", "good", "bad"), "tests": ["^value_is_good$"]},
    {"id": "beyond-kills", "reason": "r", "edits": edit("other.txt", "good", "bad"), "tests": ["^other_is_good$"]},
    {"id": "survives", "reason": "r", "edits": edit("notes.txt", "nothing", "no test"), "tests": ["^value_is_good$"]},
    {"id": "gone", "reason": "r", "edits": edit("value.txt", "excellent", "bad"), "tests": []},
    {"id": "twice", "reason": "r", "edits": edit("check.cmake", "text", "words"), "tests": []}]}
(WORK / "toy_mutants.json").write_text(json.dumps(catalogue))
results_file = WORK / "toy_results.json"
result = run(sys.executable, str(mutants), str(toy), str(WORK / "mutants_run"), "--catalogue",
             str(WORK / "toy_mutants.json"), "--results", str(results_file), "--jobs", "1")
expect(result.returncode == 1, f"run_mutants.py exits {result.returncode} with mutants not killed:\n{result.stdout}")
found = {r["id"]: r for r in json.loads(results_file.read_text())["mutants"]} if results_file.exists() else {}
expected = {"unit-kills": ("killed", ["value_is_good"], []), "beyond-kills": ("killed", [], ["other_is_good"]),
            "survives": ("survived", [], []), "gone": ("not applicable", [], []), "twice": ("ambiguous", [], [])}
for mutant_id, (status, unit, other) in expected.items():
    got = found.get(mutant_id, {})
    expect((got.get("status"), got.get("unit_killers"), got.get("other_killers")) == (status, unit, other),
           f"run_mutants.py reports {mutant_id} as {got}, not {status} by {unit + other}:\n{result.stdout}")
expect(found.get("survives", {}).get("expected_not_failing") == ["^value_is_good$"],
       "run_mutants.py does not say which named test failed to kill a mutant")
copy = WORK / "mutants_run" / "source"
expect(all((copy / name).read_text() == (toy / name).read_text() for name in ("value.txt", "other.txt", "notes.txt")),
       "run_mutants.py leaves a mutant's edit in its copy")
expect((toy / "value.txt").read_text() == "good\n", "run_mutants.py edits the checkout itself")
result = run(sys.executable, str(mutants), str(toy), str(WORK / "mutants_run"), "--catalogue",
             str(WORK / "toy_mutants.json"), "--only", "beyond-kills", "--unit-only")
expect(result.returncode == 1 and "  survived" in result.stdout,
       f"with --unit-only, a mutant only a test beyond the unit tier kills survives:\n{result.stdout}")
result = run(sys.executable, str(mutants), str(SOURCE), str(WORK / "unused"), "--check")
expect(result.returncode == 0, f"tests/mutants/mutants.json is malformed:\n{result.stdout}")
broken = json.loads((TESTS / "mutants" / "mutants.json").read_text())
broken["mutants"].append(dict(broken["mutants"][0]))
(WORK / "broken_mutants.json").write_text(json.dumps(broken))
result = run(sys.executable, str(mutants), str(SOURCE), str(WORK / "unused"), "--check", "--catalogue",
             str(WORK / "broken_mutants.json"))
expect(result.returncode != 0 and "given twice" in result.stdout, f"a mutant id given twice passes:\n{result.stdout}")

for failure in failures:
    print("FAIL:", failure)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
