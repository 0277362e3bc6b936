"""The install line works as released: with c.CourseSite.url set, `make release` writes the
released notebooks' first cell to install the students' wheel from the published site, its
hash pinned; the bundle served on 127.0.0.1, that cell, run as Colab runs it in a fresh venv
with no index at all, installs the package from there, and the notebooks' set-up cells run.

The venv's pip finds nothing on the network: ``PIP_NO_INDEX``, no configuration file, and
for torch, tiktoken, numpy and what they need only .student-wheels/, which `make test`'s
set-up fills (testsupport/student_wheels.py); the course package itself only at the site.
"""

import hashlib
import json
import os
import subprocess
import sys

import nbformat
import pytest

from testsupport.course import ROOT, assignments, make, notebook_file
from testsupport.publishing import (SITE, bundle_files, grader, left_over_folders,
                                    publishing_copy, set_site, static_server)
from testsupport.student_wheels import is_complete

WHEELS = os.path.join(ROOT, ".student-wheels")
INSTALL_SECONDS = 1800  # torch is unpacked into the venv
STUDENT_ID = "A001"


@pytest.fixture(scope="module")
def published(bundle, tmp_path_factory):
    """A copy of the course published at the address of a server on 127.0.0.1, which serves
    its _publish/: (course, server). An old bundle with a stale page was there before."""
    course = publishing_copy(str(tmp_path_factory.mktemp("published") / "course"))
    with static_server(os.path.join(course, "_publish")) as server:
        set_site(course, server.url)
        released = make(course, "release", timeout=1200)
        assert released.returncode == 0, (released.stdout + released.stderr)[-4000:]
        os.makedirs(os.path.join(course, "_publish"))
        with open(os.path.join(course, "_publish", "stale.html"), "w") as handle:
            handle.write("<p>last term's page</p>")
        done = grader(course, "publish", "--site", SITE)
        assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
        yield course, server


def the_wheel(course):
    folder = os.path.join(course, "_publish", "packages")
    [name] = [n for n in os.listdir(folder) if n.endswith(".whl")]
    return os.path.join(folder, name)


def code_cells(course, assignment):
    notebook = nbformat.read(notebook_file("exercises", assignment, course), as_version=4)
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_release_writes_the_wheels_address_on_the_site_with_its_hash(published):
    course, server = published
    wheel = the_wheel(course)
    digest = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
    line = (f'COURSE_PACKAGE = "gptcourse @ {server.url}packages/{os.path.basename(wheel)}'
            f'#sha256={digest}"  # where pip installs the course package from, set for this '
            f'homework')
    for assignment in assignments(course):
        for folder in ("solutions", "exercises"):
            text = open(notebook_file(folder, assignment, course), encoding="utf-8").read()
            assert json.dumps(line + "\n") in text, (folder, assignment)
        [install] = [c for c in code_cells(course, assignment) if "COURSE_PACKAGE =" in c.source]
        assert line in install.source.splitlines()
    sha_file = open(wheel + ".sha256", encoding="utf-8").read()
    assert sha_file == f"{digest}  {os.path.basename(wheel)}\n"
    assert "git+" not in open(notebook_file("exercises", "parameters", course)).read()


def test_an_old_bundle_is_replaced_whole(published):
    course, _ = published
    files = bundle_files(os.path.join(course, "_publish"))
    assert "stale.html" not in files and "index.html" in files
    assert left_over_folders(course) == []


@pytest.fixture(scope="module")
def student_venv(published, tmp_path_factory):
    """A fresh venv, and the environment its pip runs in: no index, no configuration file,
    the dependencies' wheels of .student-wheels/ only."""
    if not is_complete(WHEELS):
        pytest.fail(f"{WHEELS} is missing: `make test` fills it at set-up "
                    f"(make .student-wheels/.complete)")
    venv = tmp_path_factory.mktemp("student") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=WHEELS, PIP_CONFIG_FILE=os.devnull,
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    return str(venv / "bin" / "python"), env


RUN_CELLS = """
import json, sys
namespace = {"__name__": "__main__"}
for grade_id, source in json.load(open(sys.argv[1])):
    print(f"--- cell {grade_id}", flush=True)
    exec(compile(source, f"<cell {grade_id}>", "exec"), namespace)
print("--- every set-up cell ran", flush=True)
"""


def run_set_up_cells(course, assignment, python, env, folder):
    """The released notebook's code cells up to its first answer, run top to bottom in one
    interpreter of the venv, as Colab runs a notebook; a student types their id."""
    cells = []
    for cell in code_cells(course, assignment):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") != "student_id":
            break
        source = cell.source
        if meta.get("grade_id") == "student_id":
            source = source.replace('STUDENT_ID = ""', f'STUDENT_ID = "{STUDENT_ID}"')
        cells.append((meta.get("grade_id"), source))
    script = os.path.join(folder, f"{assignment}-cells.json")
    with open(script, "w", encoding="utf-8") as handle:
        json.dump(cells, handle)
    return [c for c, _ in cells], subprocess.run(
        [python, "-c", RUN_CELLS, script], cwd=folder, env=env, capture_output=True, text=True,
        timeout=INSTALL_SECONDS)


def test_the_first_cell_installs_the_package_from_the_site_and_the_set_up_cells_run(
        published, student_venv, tmp_path):
    course, server = published
    python, env = student_venv
    missing = subprocess.run([python, "-c", "import gptcourse"], env=env, capture_output=True)
    assert missing.returncode != 0  # a fresh venv: nothing of the course
    wheel = the_wheel(course)
    for assignment in sorted(assignments(course)):
        ran, done = run_set_up_cells(course, assignment, python, env, str(tmp_path))
        assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
        assert done.stdout.splitlines()[-1] == "--- every set-up cell ran"
        assert ran[0] == "install" and len(ran) >= 3, ran
    output = subprocess.run(
        [python, "-c", "import gptcourse, importlib.metadata as m, json; "
                       "print(gptcourse.__file__); "
                       "print(m.distribution('gptcourse').read_text('direct_url.json'))"],
        env=env, capture_output=True, text=True, check=True).stdout.splitlines()
    assert output[0].startswith(os.path.dirname(os.path.dirname(python)))  # in the venv
    origin = json.loads(output[1])
    assert origin["url"] == f"{server.url}packages/{os.path.basename(wheel)}"
    assert origin["archive_info"]["hashes"]["sha256"] == hashlib.sha256(
        open(wheel, "rb").read()).hexdigest()
    assert f"/packages/{os.path.basename(wheel)}" in server.requests  # fetched from the site


def test_the_own_model_cell_prints_the_model_of_the_typed_id(published, student_venv, tmp_path):
    course, _ = published
    python, env = student_venv
    ran, done = run_set_up_cells(course, "parameters", python, env, str(tmp_path))
    assert done.returncode == 0, done.stderr[-4000:]
    assert "own-model" in ran
    assert f"the model of student {STUDENT_ID}: my_config, built as my_model" in done.stdout
    assert "installing the course package" not in done.stdout  # installed already: nothing


def test_a_wheel_whose_hash_does_not_match_is_refused_by_pip(published, student_venv):
    course, server = published
    python, env = student_venv
    wheel = the_wheel(course)
    [cell] = [c.source for c in code_cells(course, "parameters") if "COURSE_PACKAGE =" in c.source]
    line = next(text for text in cell.splitlines() if text.startswith("COURSE_PACKAGE = "))
    requirement = line.split('"')[1]
    original = open(wheel, "rb").read()
    try:
        with open(wheel, "ab") as handle:
            handle.write(b"\0")  # one byte more: another file at the same address
        done = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--force-reinstall",
                               requirement], env=env, capture_output=True, text=True,
                              timeout=600)
    finally:
        with open(wheel, "wb") as handle:
            handle.write(original)
    assert done.returncode != 0
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in done.stderr, done.stderr[-3000:]


def test_a_bundle_whose_package_changed_since_the_release_is_refused(published):
    course, _ = published
    module = os.path.join(course, "src", "gptcourse", "__init__.py")
    before = bundle_files(os.path.join(course, "_publish"))
    original = open(module, encoding="utf-8").read()
    try:
        with open(module, "a", encoding="utf-8") as handle:
            handle.write("# edited after the release\n")
        done = grader(course, "publish", "--site", SITE)
    finally:
        with open(module, "w", encoding="utf-8") as handle:
            handle.write(original)
    assert done.returncode == 2
    assert "error: the released notebooks do not install this wheel:" in done.stderr
    assert ("COURSE_PACKAGE = \"gptcourse @ " in done.stderr and
            "a wheel whose sha256 is not the one built now" in done.stderr)
    assert "run make release (it writes the line and generates exercises/ again)" in done.stderr
    assert bundle_files(os.path.join(course, "_publish")) == before
    assert left_over_folders(course) == []
