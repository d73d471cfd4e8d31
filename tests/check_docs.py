#!/usr/bin/python3
"""The documentation is true: its links lead somewhere, the files it names exist, and its sessions run.

Usage:
  check_docs.py links SOURCE_DIR
      Every relative link of README.md and docs/*.md (and the other Markdown files of the repository) points to a
      file that exists and, with #anchor, to a heading of that file (GitHub's anchors); every repository path a
      page names in `code` (generator/src/codegen/print.cpp, tests/import/, ...) exists.
  check_docs.py run SOURCE_DIR BUILD_DIR WORK_DIR PAGE... [--prefix PATH]
      Runs the sessions of each page in a scratch folder WORK_DIR/<page> that holds a copy of the files git
      tracks in SOURCE_DIR (so nothing a reader left in the checkout, such as an earlier run of these sessions,
      reaches the copy; without git, every file but .git and the build* folders) and `build`, a link to BUILD_DIR:
        ```LANG file=PATH   the block's text is written to PATH;
        ```console          each `$ command` (a line ending in \\ continues it) runs in bash; the lines after
                            it, up to the next command, are its expected output, compared exactly (a line `...`
                            stands for any number of lines). A command must exit 0.
      /opt/kernelgen in commands, and PATH in their output, stands for --prefix PATH (an install the test makes).
      The sessions of the README and docs/import.md, followed in a checkout, must leave it as it was: they may
      write under build/ only.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

TOP_LEVEL = ("generator", "templates", "specs", "generated", "tests", "cmake", "bench", "examples", "docs", "schema",
             "tools", "boards")


def markdown_files(source):
    files = [source / "README.md"] + sorted((source / "docs").glob("*.md"))
    for extra in ("tests/ort_crosscheck/README.md", "tests/fuzz/import_regressions/README.md"):
        if (source / extra).exists():
            files.append(source / extra)
    return files


def blocks(text):
    """(info string, lines) of every fenced block, and the text outside them."""
    found, outside, info, body = [], [], None, []
    for line in text.split("\n"):
        if info is None and line.startswith("```"):
            info, body = line[3:].strip(), []
        elif info is not None and line == "```":
            found.append((info, body))
            info = None
        elif info is not None:
            body.append(line)
        else:
            outside.append(line)
    return found, "\n".join(outside)


def slug(title):
    title = re.sub(r"`", "", title.strip().lower())
    title = re.sub(r"[^\w\- ]", "", title)
    return title.replace(" ", "-")


def anchors_of(path):
    _, outside = blocks(path.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.*)$", outside, re.M)}


def check_links(source):
    problems = []
    for page in markdown_files(source):
        _, outside = blocks(page.read_text())
        shown = page.relative_to(source)
        for target in re.findall(r"\]\(([^)\s]+)\)", outside):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                problems.append(f"{shown}: link to {target}: no such file")
            elif anchor and file.suffix == ".md" and anchor not in anchors_of(file):
                problems.append(f"{shown}: link to {target}: no heading #{anchor} there")
        for code in re.findall(r"`([^`\n]+)`", outside):
            word = code.split()[0] if code.split() else ""
            if not re.match(r"^(%s)/" % "|".join(TOP_LEVEL), word) or re.search(r"[*<>{}$]|\.\.\.", word):
                continue
            word = word.rstrip(".,:;)")
            if not (source / word).exists():
                problems.append(f"{shown}: names {word}, which does not exist")
    return problems


# Pages a reader follows in the checkout itself: their sessions and files may write under build/ (which git ignores)
# and nowhere else, so that following them leaves every test as it was.
CLEAN_PAGES = {"README.md", "docs/import.md"}


def tracked_files(source):
    """The files git tracks in `source` (those of the working tree, with its edits), or None without git."""
    try:
        listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [name for name in listed.decode().split("\0") if name]


def copy_checkout(source, scratch):
    """Copies into `scratch` what the repository holds: the files git tracks, else all but .git and build*."""
    tracked = tracked_files(source)
    if tracked is None:
        for entry in source.iterdir():
            if entry.name == ".git" or entry.name.startswith("build"):
                continue
            if entry.is_dir():
                shutil.copytree(entry, scratch / entry.name, symlinks=True)
            else:
                shutil.copy2(entry, scratch / entry.name)
        return
    for name in tracked:
        origin = source / name
        if not origin.exists() and not origin.is_symlink():
            continue  # deleted in the working tree
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(origin, scratch / name, follow_symlinks=False)


def snapshot(scratch):
    """Every file and folder of `scratch` (not through its build link) with its size and time."""
    found = {}
    for folder, dirs, files in os.walk(scratch):
        if pathlib.Path(folder) == scratch and "build" in dirs:
            dirs.remove("build")
        for name in dirs + files:
            path = pathlib.Path(folder) / name
            stat = path.lstat()
            found[str(path.relative_to(scratch))] = (stat.st_size, stat.st_mtime_ns)
    return found


def run_sessions(source, build, work, pages, prefix):
    failures = 0
    for page_name in pages:
        page = source / page_name
        scratch = work / page.stem
        if scratch.exists():
            shutil.rmtree(scratch)
        scratch.mkdir(parents=True)
        # A copy of the checkout (what a session writes stays in the scratch folder), and the build.
        copy_checkout(source, scratch)
        (scratch / "build").symlink_to(build)
        before = snapshot(scratch)
        found, _ = blocks(page.read_text())
        commands = 0
        for info, body in found:
            words = info.split()
            files = [w[5:] for w in words if w.startswith("file=")]
            if files:
                target = scratch / files[0]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text("\n".join(body) + "\n")
                continue
            if not words or words[0] != "console":
                continue
            sessions = []  # (command, expected lines)
            pending = None
            for line in body:
                if pending is not None and pending.endswith("\\"):
                    pending = pending[:-1] + line
                    sessions[-1] = (pending, [])
                elif line.startswith("$ "):
                    pending = line[2:]
                    sessions.append((pending, []))
                elif sessions:
                    sessions[-1][1].append(line)
            for command, expected in sessions:
                commands += 1
                run = command.replace("/opt/kernelgen", str(prefix)) if prefix else command
                result = subprocess.run(["bash", "-c", run], cwd=scratch, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
                shown = result.stdout.replace(str(prefix), "/opt/kernelgen") if prefix else result.stdout
                out = shown.rstrip("\n").split("\n") if shown else []
                if result.returncode != 0 or (expected and not matches(expected, out)):
                    failures += 1
                    print(f"{page_name}: $ {command}\n  exit status {result.returncode}; expected:\n    " +
                          "\n    ".join(expected) + "\n  got:\n    " + "\n    ".join(out))
        if page_name in CLEAN_PAGES:
            after = snapshot(scratch)
            left = sorted(name for name in after if before.get(name) != after[name])
            if left:
                failures += 1
                print(f"{page_name}: a reader following the page would leave these in the checkout (write under "
                      f"build/ instead): {', '.join(left)}")
        print(f"{page_name}: {commands} commands run")
    return failures


def matches(expected, got):
    if not expected:
        return True
    if expected[0] == "...":
        return any(matches(expected[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and expected[0] == got[0] and matches(expected[1:], got[1:])


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "links":
        problems = check_links(pathlib.Path(sys.argv[2]).resolve())
        for problem in problems:
            print(problem)
        print(f"{len(problems)} problems in the documentation's links and file names")
        return 1 if problems else 0
    if len(sys.argv) >= 6 and sys.argv[1] == "run":
        args = sys.argv[2:]
        prefix = None
        if "--prefix" in args:
            at = args.index("--prefix")
            prefix = pathlib.Path(args[at + 1]).resolve()
            del args[at:at + 2]
        source, build, work = (pathlib.Path(a).resolve() for a in args[:3])
        return 1 if run_sessions(source, build, work, args[3:], prefix) else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
