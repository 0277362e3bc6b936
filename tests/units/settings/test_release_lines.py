"""The lines `make release` writes into the notebooks (grader.settings.release_lines): the
variant salt, refused while stale, and the install line of the course package (the students'
wheel on the published site, its hash pinned), with the first code cell, which uses it:
installs nothing where the package is, says how it installs it where not."""

import json
import os
import subprocess
import sys

import nbformat
import pytest

from grader.settings import CourseError, load, write_release_lines
from grader.settings.course_wheel import CourseWheel
from grader.settings.release_lines import install_requirement
from testsupport.course import assignments, copy_course, notebook_file

# the comment of the line, for the student who reads the first cell
PACKAGE_COMMENT = "  # where pip installs the course package from, set for this homework"
SHA = "5" * 64
WHEEL = CourseWheel("/nowhere/gptcourse-1.2.0-py3-none-any.whl", SHA, "gptcourse", "1.2.0")
SITE = "https://uni-ml.github.io/gptcourse/"
LINE = f"gptcourse @ https://uni-ml.github.io/gptcourse/packages/{WHEEL.filename}#sha256={SHA}"


def published_at(root, url):
    """The course at `root` with c.CourseSite.url set to `url` (the last line wins)."""
    with open(os.path.join(root, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(f"c.CourseSite.url = {url!r}\n")
    return root


@pytest.fixture
def built_wheels(monkeypatch):
    """The wheel `make release` would build, replaced by WHEEL: the calls are counted."""
    calls = []

    def build(root, folder):
        calls.append(root)
        return WHEEL
    monkeypatch.setattr("grader.settings.release_lines.build_course_wheel", build)
    return calls


def install_cell(assignment):
    """The released notebook's cell that holds the COURSE_PACKAGE line."""
    nb = nbformat.read(notebook_file("exercises", assignment), as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and "COURSE_PACKAGE = " in c.source]
    assert len(cells) == 1, assignment
    return cells[0], nb


@pytest.mark.parametrize("site", [SITE, SITE.rstrip("/")])
def test_the_requirement_is_the_wheel_on_the_site_its_hash_pinned(tmp_path, site):
    root = published_at(copy_course(str(tmp_path / "course")), site)
    assert install_requirement(load(root), WHEEL) == LINE


def test_without_a_site_there_is_no_requirement_and_no_wheel_is_built(tmp_path, built_wheels):
    assert install_requirement(load(copy_course(str(tmp_path / "course")))) is None
    assert built_wheels == []


def test_release_writes_the_line_into_every_notebook_and_nothing_else(tmp_path, built_wheels):
    root = copy_course(str(tmp_path / "course"))
    notebooks = [notebook_file("solutions", a, root) for a in assignments(root)]
    before = {path: open(path, encoding="utf-8").read() for path in notebooks}
    assert write_release_lines(load(root)) == []  # no site: the line stays None
    published_at(root, SITE)
    line = f"COURSE_PACKAGE = {json.dumps(LINE)}"
    assert write_release_lines(load(root)) == [(path, line) for path in sorted(notebooks)]
    assert built_wheels == [root]  # the wheel is built once, from the course
    for path in notebooks:
        after = open(path, encoding="utf-8").read()
        old, new = before[path].splitlines(), after.splitlines()
        assert len(old) == len(new)
        [(was, now)] = [(a, b) for a, b in zip(old, new) if a != b]  # one line changed
        assert was.strip() == json.dumps(f"COURSE_PACKAGE = None{PACKAGE_COMMENT}\n") + ","
        assert now.strip() == json.dumps(f"{line}{PACKAGE_COMMENT}\n") + ","


@pytest.mark.parametrize("setting, where", [
    ("c.CourseSite.url", "nbgrader_config.py"), ("repository.url", "_config.yml")])
@pytest.mark.parametrize("address", ["https://github.com/uni-ml/gptcourse-instructor",
                                     "https://github.com/Uni-ML/gptcourse-instructor.git/"])
def test_release_refuses_an_address_that_is_the_courses_own_repository(tmp_path, setting, where,
                                                                      address, built_wheels):
    root = copy_course(str(tmp_path / "course"))
    subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(["git", "-C", root, "remote", "add", "origin",
                    "git@github.com:uni-ml/gptcourse-instructor.git"], check=True)
    if where == "_config.yml":
        with open(os.path.join(root, "_config.yml"), "w", encoding="utf-8") as handle:
            handle.write(f"repository:\n  url: {address}\n")
    else:
        published_at(root, address)
    notebooks = {p: open(p, "rb").read() for p in
                 (notebook_file("solutions", a, root) for a in assignments(root))}
    with pytest.raises(CourseError) as refused:
        write_release_lines(load(root))
    said = str(refused.value)
    assert said.startswith(f"{setting} ({where}")
    assert f"is {address!r}, this course's own repository (git remote " \
           f"'git@github.com:uni-ml/gptcourse-instructor.git'), which holds solutions/" in said
    assert "make publish-repo REMOTE=" in said  # the fix
    assert {p: open(p, "rb").read() for p in notebooks} == notebooks  # nothing written
    assert built_wheels == []


def test_another_repository_and_a_pages_site_of_the_same_owner_are_accepted(tmp_path,
                                                                           built_wheels):
    root = copy_course(str(tmp_path / "course"))
    subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(["git", "-C", root, "remote", "add", "origin",
                    "https://github.com/uni-ml/gptcourse-instructor"], check=True)
    with open(os.path.join(root, "_config.yml"), "w", encoding="utf-8") as handle:
        handle.write("repository:\n  url: https://github.com/uni-ml/gptcourse-site\n")
    published_at(root, "https://uni-ml.github.io/gptcourse-instructor/")
    assert len(write_release_lines(load(root))) == len(assignments(root))


@pytest.mark.parametrize("assignment", assignments())
def test_where_the_package_is_installed_the_cell_installs_nothing(assignment, tmp_path):
    cell, _ = install_cell(assignment)
    # subprocess.run replaced by one that records: the cell must not call it
    script = ("import subprocess, sys\ncalls = []\n"
              "subprocess.run = lambda *a, **k: calls.append(a)\n"
              f"exec({cell.source!r})\nassert calls == [], calls\nprint('nothing installed')\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "nothing installed\n"


@pytest.mark.parametrize("package, expected", [
    (None, "this copy of the homework came without its install line: ask your instructor"),
    (LINE, f"installing the course package: pip install {LINE!r}"),
])
@pytest.mark.parametrize("assignment", assignments())
def test_where_the_package_is_missing_the_cell_says_how_it_installs_it(assignment, package,
                                                                       expected, tmp_path):
    cell, _ = install_cell(assignment)
    source = cell.source.replace(
        f"COURSE_PACKAGE = None{PACKAGE_COMMENT}",
        f"COURSE_PACKAGE = {package!r}")
    # gptcourse made unfindable, and pip replaced by one that records what it was asked
    script = ("import importlib.util, subprocess, sys\ncalls = []\n"
              "find = importlib.util.find_spec\n"
              "importlib.util.find_spec = lambda name, *a: None if name == 'gptcourse' "
              "else find(name, *a)\n"
              "subprocess.run = lambda args, **k: calls.append(args[3:])\n"
              f"exec({source!r})\nprint(calls)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=tmp_path)
    assert expected in result.stdout + result.stderr
    if package:
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[-1] == repr([["install", "--quiet", package]])
    else:
        assert result.returncode == 1
        assert "ModuleNotFoundError" in result.stderr


def salt_lines(path):
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    return [line for cell in cells for line in "".join(cell["source"]).splitlines()
            if line.startswith("COURSE_SALT = ")]


def test_a_new_terms_salt_is_written_into_the_notebook_and_refused_until_then(tmp_path):
    from grader.settings import load, stale_salts, write_release_lines

    course = copy_course(str(tmp_path / "course"))
    config = os.path.join(course, "nbgrader_config.py")
    notebook = os.path.join(course, "solutions", "parameters", "parameters.ipynb")
    assert stale_salts(load(course)) == []
    with open(notebook, "rb") as handle:
        before = handle.read()
    assert write_release_lines(load(course)) == []  # nothing to change: the file is kept byte for byte
    with open(config, "a", encoding="utf-8") as handle:
        handle.write('c.StudentVariants.salt = "2027-spring"\n')
    stale = stale_salts(load(course))
    assert stale == [f'solutions/{name} has COURSE_SALT = "2026-fall", but '
                     'c.StudentVariants.salt is "2027-spring": run `make release`, which '
                     'writes the salt into the notebooks'
                     for name in ("parameters/parameters.ipynb", "sampling/sampling.ipynb")]
    sampling = os.path.join(course, "solutions", "sampling", "sampling.ipynb")
    assert write_release_lines(load(course)) == [(notebook, 'COURSE_SALT = "2027-spring"'),
                                                 (sampling, 'COURSE_SALT = "2027-spring"')]
    assert stale_salts(load(course)) == []
    [line] = salt_lines(notebook)
    assert line.startswith('COURSE_SALT = "2027-spring"  # ')  # the comment is kept
    with open(notebook, "rb") as handle:
        after = handle.read()
    assert len(after.splitlines()) == len(before.splitlines())  # one line changed, no reformatting
    assert sum(a != b for a, b in zip(after.splitlines(), before.splitlines())) == 1


def test_without_a_site_release_warns_that_the_first_cell_cannot_install(tmp_path):
    from grader.settings import no_install_line_warning

    root = copy_course(str(tmp_path / "course"))
    warning = no_install_line_warning(load(root))
    assert warning.startswith("warning: c.CourseSite.url is empty in nbgrader_config.py, so "
                              "the released notebooks cannot install the course package "
                              "gptcourse off the hub.\n")
    for assignment in assignments(root):
        assert os.path.relpath(notebook_file("solutions", assignment, root), root) in warning
    assert "set c.CourseSite.url to the address where _publish/ is served" in warning
    assert no_install_line_warning(load(published_at(root, SITE))) is None


def test_notebooks_that_promise_no_install_get_no_warning(tmp_path):
    from grader.settings import no_install_line_warning

    root = copy_course(str(tmp_path / "course"))
    for assignment in assignments(root):
        path = notebook_file("solutions", assignment, root)
        nb = nbformat.read(path, as_version=4)
        nb.cells = [c for c in nb.cells if "COURSE_PACKAGE = " not in c.source]
        nbformat.write(nb, path)
    assert no_install_line_warning(load(root)) is None


def test_the_release_lines_command_prints_the_warning_and_still_writes_the_lines(
        tmp_path, capsys, built_wheels):
    from grader.cli import main

    root = copy_course(str(tmp_path / "course"))
    assert main(["release-lines", "--course", root]) == 0
    printed = capsys.readouterr()
    assert "warning: c.CourseSite.url is empty" in printed.err
    published_at(root, SITE)
    assert main(["release-lines", "--course", root]) == 0
    printed = capsys.readouterr()
    assert "warning" not in printed.err
    assert printed.out.count(f"COURSE_PACKAGE = {json.dumps(LINE)}") == len(assignments(root))


def test_the_release_lines_command_refuses_the_courses_own_repository(tmp_path, capsys):
    from grader.cli import main

    root = copy_course(str(tmp_path / "course"))
    subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(["git", "-C", root, "remote", "add", "origin",
                    "https://github.com/uni-ml/gptcourse"], check=True)
    published_at(root, "https://github.com/uni-ml/gptcourse")
    assert main(["release-lines", "--course", root]) == 2
    assert "this course's own repository" in capsys.readouterr().err


@pytest.mark.parametrize("assignment", assignments())
def test_the_released_text_says_what_the_first_cell_does_without_an_install_line(assignment):
    cell, nb = install_cell(assignment)
    intro = " ".join(nb.cells[0].source.split())
    assert "If the cell stops and says that this copy came without an install line, ask " \
           "your instructor for the line" in intro
    # the first cell speaks to the student: nothing of the instructor's commands
    for code_cell in (c for c in nb.cells if c.cell_type == "code"):
        assert "make release" not in code_cell.source
        assert "nbgrader_config" not in code_cell.source
