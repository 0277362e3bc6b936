"""The repository's two distributions built as pip builds them, and a fresh environment for one.

`build_wheel` builds a copy of a project folder (so nothing is written into the
repository) with the environment's own setuptools, nothing fetched. `fresh_environment`
makes a new venv that holds nothing but what it is given: the wheel installed by pip
with no index and no dependencies, and read-only access to torch, numpy and tiktoken
(and what they need) through one ``.pth`` file that names one folder of links to
exactly those distributions, so that nothing else of this environment (nbgrader, the
grader, src/) can be imported there.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata

from packaging.requirements import Requirement

from testsupport.course import ROOT

LEFT_BY_BUILDS = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
STUDENTS_DEPENDENCIES = ("torch", "numpy", "tiktoken")  # the course package's, pyproject.toml


def project_copy(dest, *names):
    """The repository's files or folders `names` copied into `dest` (a project to build)."""
    for name in names:
        source = os.path.join(ROOT, name)
        target = os.path.join(dest, name)
        if os.path.isdir(source):
            shutil.copytree(source, target, ignore=LEFT_BY_BUILDS)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)
    return dest


def build_wheel(project, out):
    """The path of the wheel pip builds of the project folder `project`, into `out`."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--disable-pip-version-check", "--wheel-dir", out, project],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [wheel] = [name for name in os.listdir(out) if name.endswith(".whl")]
    return os.path.join(out, wheel)


def wheel_files(wheel):
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def wheel_metadata(wheel):
    """The wheel's METADATA, as email-style headers."""
    from email.parser import Parser

    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(archive.read(name).decode("utf-8"))


def distribution_closure(names):
    """The installed distributions `names` and every one they need (markers of this
    interpreter, no extras), by their normalised names."""
    found, todo = {}, list(names)
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-").replace(".", "-")
        if key in found:
            continue
        try:
            found[key] = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an optional dependency this environment does not have
        for text in found[key].requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def linked_distributions(folder, names):
    """`folder` holding a link to each top-level file and folder of the distributions
    `names` and of those they need; returns the names of the links."""
    os.makedirs(folder)
    linked = set()
    for distribution in distribution_closure(names).values():
        base = distribution.locate_file("")
        for path in distribution.files or []:
            top = path.parts[0]
            if top == ".." or top in linked or top.endswith(".pth"):
                continue
            source = os.path.join(str(base), top)
            if os.path.exists(source):
                os.symlink(source, os.path.join(folder, top))
                linked.add(top)
    return linked


def fresh_environment(folder, wheel, shared=STUDENTS_DEPENDENCIES):
    """A new venv at `folder`/env with `wheel` installed by pip (no index, no dependency),
    and the installed distributions `shared` (with what they need) readable through one
    .pth file; returns (its python, the names linked)."""
    env = os.path.join(folder, "env")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env], check=True,
                   capture_output=True, timeout=300)
    python = os.path.join(env, "bin", "python")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-index",
         "--no-deps", "--disable-pip-version-check", wheel],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    linked = linked_distributions(os.path.join(folder, "shared"), shared)
    site_packages = subprocess.run(
        [python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site_packages, "shared-read-only.pth"), "w",
              encoding="utf-8") as handle:
        handle.write(os.path.join(folder, "shared") + "\n")
    return python, linked


def run_python(python, code, cwd):
    """`code` run by `python` in isolated mode (no PYTHONPATH, no user site) in `cwd`."""
    return subprocess.run([python, "-I", "-c", code], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
