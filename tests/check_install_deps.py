#!/usr/bin/env python3
"""tools/install-deps.sh, the README's first command, works as written as root (no sudo on the machine) and as
another user with sudo, and says what to do as another user without it.

Usage: check_install_deps.py REPOSITORY WORK_DIR

Runs a copy of the script in WORK_DIR with stand-ins for id, sudo, apt-get and npm on a PATH that holds only
them and the few programs the script needs (so that a real sudo or apt-get is never found): each stand-in logs
its arguments and the user id it runs as, and the stand-in sudo runs its command as root (user id 0).
- as root, without sudo: apt-get runs as root, directly; npm installs ONNX Runtime; exit 0;
- as user 1000, with sudo: apt-get (update, then install) runs through sudo as root; npm runs as user 1000, so
  that build/ stays the user's; exit 0;
- as user 1000, without sudo: exit 1, the message says to run it as root or to install sudo, and nothing ran.
"""
import os
import pathlib
import shutil
import subprocess
import sys

NEEDED = ["bash", "env", "dirname", "mkdir", "rm", "tar", "cat"]

STAND_IN = """#!{bash}
echo "{name} uid=${{FAKE_UID}} $*" >> "{log}"
"""
ID = """#!{bash}
if [ "$1" = "-u" ]; then echo "${{FAKE_UID}}"; else echo "uid=${{FAKE_UID}}"; fi
"""
SUDO = """#!{bash}
echo "sudo uid=${{FAKE_UID}} $*" >> "{log}"
FAKE_UID=0 exec "$@"
"""


def scenario(source, work, uid, with_sudo):
    root = work / f"uid{uid}{'-sudo' if with_sudo else ''}"
    shutil.rmtree(root, ignore_errors=True)
    (root / "tools").mkdir(parents=True)
    shutil.copy2(source / "tools" / "install-deps.sh", root / "tools" / "install-deps.sh")
    (root / "build" / "models").mkdir(parents=True)
    (root / "build" / "models" / "silero_vad_v5.onnx").write_text("")  # already downloaded: no npm pack
    bin_dir = root / "bin"
    bin_dir.mkdir()
    log = root / "log"
    bash = shutil.which("bash")
    for name in NEEDED:
        (bin_dir / name).symlink_to(shutil.which(name))
    scripts = {"id": ID, "apt-get": STAND_IN, "npm": STAND_IN}
    if with_sudo:
        scripts["sudo"] = SUDO
    for name, text in scripts.items():
        (bin_dir / name).write_text(text.format(bash=bash, name=name, log=log))
        (bin_dir / name).chmod(0o755)
    result = subprocess.run([bash, str(root / "tools" / "install-deps.sh")], capture_output=True, text=True,
                            env={"PATH": str(bin_dir), "FAKE_UID": str(uid), "HOME": str(root)})
    lines = log.read_text().splitlines() if log.exists() else []
    return result, lines


def main():
    source, work = (pathlib.Path(a).resolve() for a in sys.argv[1:3])
    failures = []

    def expect(condition, what, result, lines):
        if not condition:
            failures.append(f"{what}\n  exit status {result.returncode}\n  stdout: {result.stdout}\n  stderr: "
                            f"{result.stderr}\n  ran: " + "\n       ".join(lines))

    result, lines = scenario(source, work, 0, False)
    apt = [line for line in lines if line.startswith("apt-get")]
    expect(result.returncode == 0, "as root without sudo: exit 0", result, lines)
    expect(len(apt) == 2 and all(line.startswith("apt-get uid=0 ") for line in apt)
           and apt[0] == "apt-get uid=0 update -qq" and " install -y " in apt[1],
           "as root without sudo: apt-get update and install, as root", result, lines)
    expect(not any(line.startswith("sudo") for line in lines), "as root: no sudo", result, lines)
    expect(any(line.startswith("npm uid=0 install ") for line in lines), "as root: npm installs", result, lines)

    result, lines = scenario(source, work, 1000, True)
    apt = [line for line in lines if line.startswith("apt-get")]
    expect(result.returncode == 0, "as a user with sudo: exit 0", result, lines)
    expect(len(apt) == 2 and all(line.startswith("apt-get uid=0 ") for line in apt),
           "as a user with sudo: apt-get runs as root", result, lines)
    expect([line.split()[0] for line in lines if line.startswith(("sudo", "apt-get"))] ==
           ["sudo", "apt-get", "sudo", "apt-get"], "as a user with sudo: each apt-get through sudo", result, lines)
    expect(any(line.startswith("npm uid=1000 install ") for line in lines),
           "as a user with sudo: npm runs as the user, not root", result, lines)
    expect("through sudo" in result.stdout, "as a user with sudo: it says so", result, lines)

    result, lines = scenario(source, work, 1000, False)
    expect(result.returncode == 1, "as a user without sudo: exit 1", result, lines)
    expect("run this as root, or install sudo" in result.stderr, "as a user without sudo: what to do", result, lines)
    expect(lines == [], "as a user without sudo: nothing runs", result, lines)

    for failure in failures:
        print(failure)
    print(f"3 ways of running tools/install-deps.sh: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
