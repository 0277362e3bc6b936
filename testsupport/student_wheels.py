"""The students' install, offline: the wheels of the course package's dependencies in a folder.

A released notebook's first cell runs
``pip install "gptcourse @ <site>/packages/<wheel>#sha256=<hash>"``;
pip then installs what the wheel requires (torch, tiktoken, numpy) and what those require.
The test of that cell (tests/publish/test_install_line.py) runs it in a fresh venv with
no index at all (``PIP_NO_INDEX``), finding them in this folder only, so that it
fetches nothing. `make test`'s set-up fills it once:

    python -m testsupport.student_wheels .student-wheels

with ``pip download`` of the dependencies of pyproject.toml, at the versions of
requirements.lock, from wherever pip's own configuration finds them on this machine
(its index, its find-links): the only moment anything is fetched.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPLETE = ".complete"  # written last: the folder holds every wheel
PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def dependencies(root=ROOT):
    """What the course package requires, as pyproject.toml says."""
    with open(os.path.join(root, "pyproject.toml"), "rb") as handle:
        return list(tomllib.load(handle)["project"]["dependencies"])


def lock_pins(root=ROOT):
    """'name==version' of every package of requirements.lock (its hashes left out)."""
    with open(os.path.join(root, "requirements.lock"), encoding="utf-8") as handle:
        return [f"{m.group(1)}=={m.group(2)}" for line in handle
                if (m := PINNED.match(line))]


def fill(dest, root=ROOT):
    """`dest` made anew with the wheels of the dependencies and theirs; a file .complete last."""
    parent = os.path.dirname(os.path.abspath(dest)) or "."
    work = tempfile.mkdtemp(prefix=".student-wheels-", dir=parent)
    try:
        constraints = os.path.join(work, "constraints.txt")
        with open(constraints, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lock_pins(root)) + "\n")
        wheels = os.path.join(work, "wheels")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet",
                        "--disable-pip-version-check", "--only-binary=:all:", "--dest", wheels,
                        "--constraint", constraints, *dependencies(root)], check=True)
        open(os.path.join(wheels, COMPLETE), "w").close()
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(wheels, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


def is_complete(dest):
    return os.path.isfile(os.path.join(dest, COMPLETE))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m testsupport.student_wheels FOLDER")
    print(f"the students' dependencies, for the offline install test: {fill(sys.argv[1])}")
