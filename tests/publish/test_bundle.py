"""`make publish`: the bundle holds the site, the released notebooks, the students' wheel and
its page for students, nothing else; no byte of it holds a solution or a hidden test, and a
hidden test pasted into a page, a notebook or the wheel is found and its file named."""

import hashlib
import html
import json
import os
import re
import shutil
import zipfile

import nbformat
import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from grader.publish.fragments import SecretKind, secret_blocks
from testsupport.course import ROOT, assignments, notebook_file, read_notebook
from testsupport.publishing import (SITE, bundle_files, grader, left_over_folders,
                                    publishing_copy)

ADDED = {"homework", "packages", "students.html", ".nojekyll"}


def hidden_blocks():
    """[(assignment, grade_id, text)] of every hidden-test block of solutions/."""
    return [(assignment, cell["metadata"]["nbgrader"]["grade_id"], text)
            for assignment in assignments()
            for cell in read_notebook("solutions", assignment)["cells"]
            for kind, text in secret_blocks(cell) if kind is SecretKind.HIDDEN_TEST]


def the_wheel(bundle):
    [name] = [n for n in os.listdir(os.path.join(bundle, "packages")) if n.endswith(".whl")]
    return os.path.join(bundle, "packages", name)


def test_the_bundle_is_the_site_the_released_notebooks_the_wheel_and_a_page(bundle):
    site = bundle_files(SITE)
    files = bundle_files(bundle)
    assert {p.split(os.sep)[0] for p in files} == (
        {p.split(os.sep)[0] for p in site if p != ".build-ok"} | ADDED)
    for path, data in site.items():  # the site as make book built it
        assert path == ".build-ok" or files[path] == data, path
    for assignment in assignments():  # the released notebooks, as committed
        released = notebook_file("exercises", assignment)
        name = f"homework/{assignment}/{os.path.basename(released)}"
        assert files[name] == open(released, "rb").read()
    pages = sorted(p for p in files if p.startswith("book/") and p.endswith(".ipynb"))
    assert pages == sorted(f"book/{n}" for n in os.listdir(os.path.join(ROOT, "book"))
                           if n.endswith(".ipynb"))  # what the launch buttons open
    wheel = the_wheel(bundle)
    digest = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
    assert files[f"packages/{os.path.basename(wheel)}.sha256"] == (
        f"{digest}  {os.path.basename(wheel)}\n".encode())
    others = {p for p in files if p.split(os.sep)[0] in ADDED}
    assert others == {f"homework/{a}/{os.path.basename(notebook_file('exercises', a))}"
                      for a in assignments()} | {
        f"packages/{os.path.basename(wheel)}", f"packages/{os.path.basename(wheel)}.sha256",
        "students.html", ".nojekyll"}
    assert not any(re.search(r"(^|/)(solutions|src|tests|course-data)/", p) for p in files)
    assert not any(p.endswith(("nbgrader_config.py", "gradebook.db")) for p in files)


def test_the_students_page_says_how_to_install_and_links_only_what_the_bundle_holds(bundle):
    page = open(os.path.join(bundle, "students.html"), encoding="utf-8").read()
    links = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page)]
    assert links and all(os.path.isfile(os.path.join(bundle, link)) for link in links), links
    for assignment in assignments():
        assert f"homework/{assignment}/" in page
    assert '<html lang="en">' in page and "<title>" in page
    assert "This site gives no install line yet: ask your instructor for it" in page  # no site
    assert hashlib.sha256(open(the_wheel(bundle), "rb").read()).hexdigest() in page
    assert "http://" not in page and "<script" not in page


def test_the_wheel_holds_the_course_package_and_no_grader_module(bundle):
    with zipfile.ZipFile(the_wheel(bundle)) as wheel:
        names = wheel.namelist()
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = re.findall(r"^Requires-Dist: (.*)$", wheel.read(metadata).decode(), re.M)
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"gptcourse"}, sorted(tops)
    assert not [n for n in names if n.startswith("grader")]
    assert sorted(r.split(";")[0].strip() for r in requires if "extra ==" not in r) == [
        "numpy", "tiktoken", "torch"]


def test_no_byte_of_the_bundle_holds_a_solution_or_a_hidden_test(bundle):
    done = grader(ROOT, "leak-scan", bundle)
    assert done.returncode == 0, done.stderr[-4000:]
    count = int(re.search(r"none of (\d+) secret fragments", done.stdout).group(1))
    assert count > len(hidden_blocks())  # every block, whole, and its distinctive lines


@pytest.fixture(scope="module")
def planted(bundle, tmp_path_factory):
    """A copy of the bundle with a hidden test pasted into a page, a notebook and the wheel:
    {what: (the file, where the scan must name it)}, and the copy."""
    copy = tmp_path_factory.mktemp("planted") / "bundle"
    shutil.copytree(bundle, copy)
    assignment, grade_id, hidden = hidden_blocks()[0]
    page = copy / "book" / "counting.html"
    markup = page.read_text(encoding="utf-8")
    shown = highlight(hidden, PythonLexer(), HtmlFormatter())
    page.write_text(markup.replace("</main>", shown + "</main>", 1), encoding="utf-8")
    notebook_path = copy / "homework" / "logits-to-text" / "logits_to_text.ipynb"
    notebook = nbformat.read(str(notebook_path), as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(hidden))
    nbformat.write(notebook, str(notebook_path))
    wheel = the_wheel(str(copy))
    with zipfile.ZipFile(wheel, "a") as archive:
        archive.writestr("gptcourse/checks.py", hidden)
    wheel_name = os.path.relpath(wheel, copy)
    scanned = grader(ROOT, "leak-scan", str(copy))  # once, for the three places
    return copy, assignment, grade_id, scanned, {
        "an HTML page": "book/counting.html",
        "a released notebook": "homework/logits-to-text/logits_to_text.ipynb",
        "the wheel": f"{wheel_name}!gptcourse/checks.py"}


@pytest.mark.parametrize("where", ["an HTML page", "a released notebook", "the wheel"])
def test_a_hidden_test_pasted_into_the_bundle_fails_the_scan_naming_the_file(planted, where):
    copy, assignment, grade_id, scanned, files = planted
    assert scanned.returncode == 1
    named = [line for line in scanned.stderr.splitlines() if line.startswith(files[where] + ": ")]
    assert named == [f"{files[where]}: a hidden test block of solutions/{assignment}/"
                     f"{os.path.basename(notebook_file('solutions', assignment))}, cell {grade_id}"]
    assert "secret fragment(s) found in 3 file(s) of" in scanned.stderr


def test_a_bundle_that_would_leak_is_not_published_and_the_old_one_stays(bundle, planted,
                                                                         tmp_path):
    """A site that shows a hidden test (here pasted into a built page) stops make publish
    before anything is replaced."""
    copy, assignment, grade_id, _, _ = planted
    course = publishing_copy(str(tmp_path / "course"))
    site = tmp_path / "site"
    shutil.copytree(SITE, site)
    shutil.copy(copy / "book" / "counting.html", site / "book" / "counting.html")
    old = tmp_path / "course" / "_publish"
    old.mkdir()
    (old / "index.html").write_text("the last bundle")
    done = grader(course, "publish", "--site", str(site))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "secret fragment(s) found in 1 file(s) of the bundle; it was not published:" \
        in done.stderr
    assert (f"book/counting.html: a hidden test block of solutions/{assignment}/"
            in done.stderr)
    assert bundle_files(str(old)) == {"index.html": b"the last bundle"}
    assert left_over_folders(course) == []


def test_released_notebooks_that_solutions_no_longer_generate_are_refused(tmp_path):
    course = publishing_copy(str(tmp_path / "course"))
    path = notebook_file("solutions", "parameters", course)
    notebook = json.load(open(path, encoding="utf-8"))
    notebook["cells"][0]["source"] = ["# Homework: the parameters of GPT-2, edited\n"]
    json.dump(notebook, open(path, "w", encoding="utf-8"), indent=1)
    done = grader(course, "publish", "--site", SITE)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-3:] == [
        "error: the released notebooks are out of date:",
        "exercises/parameters/parameters.ipynb is not what solutions/ generates now",
        "run make release, commit exercises/, then make publish"]
    assert not os.path.exists(os.path.join(course, "_publish"))
    assert left_over_folders(course) == []


def test_an_unfinished_site_is_refused(tmp_path):
    course = publishing_copy(str(tmp_path / "course"))
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>half a site</p>")
    done = grader(course, "publish", "--site", str(site))
    assert done.returncode == 2
    assert "holds a site whose build did not finish (.build-ok is missing)" in done.stderr


CANARY = "# leak canary 7f3a9c1e5b2d4f6a8c0e1b3d5f7a9c2e"


def test_a_canary_planted_in_a_hidden_test_of_a_course_is_caught_where_it_leaks(tmp_path):
    """The fragments come from the course's own solutions/: a line nobody has seen before,
    planted in a hidden test, is found on its own in a page and in a notebook of a zip."""
    course = publishing_copy(str(tmp_path / "course"))
    path = notebook_file("solutions", "parameters", course)
    notebook = json.load(open(path, encoding="utf-8"))
    [cell] = [c for c in notebook["cells"]
              if c["metadata"].get("nbgrader", {}).get("grade_id") == "total_params_value"]
    source = "".join(cell["source"]).replace("### BEGIN HIDDEN TESTS\n",
                                             f"### BEGIN HIDDEN TESTS\n{CANARY}\n", 1)
    assert CANARY in source
    cell["source"] = source
    json.dump(notebook, open(path, "w", encoding="utf-8"), indent=1)
    leaked = tmp_path / "leaked"
    leaked.mkdir()
    (leaked / "week2.html").write_text(f"<pre><span class=\"c1\">{CANARY}</span></pre>")
    with zipfile.ZipFile(leaked / "notes.zip", "w") as archive:
        archive.writestr("notes/a.ipynb", json.dumps({"cells": [{"source": [CANARY + "\n"]}]}))
    done = grader(course, "leak-scan", str(leaked))
    assert done.returncode == 1
    where = ("a line of a hidden test block of solutions/parameters/parameters.ipynb, "
             "cell total_params_value")
    assert f"\nweek2.html: {where}" in done.stderr
    assert f"\nnotes.zip!notes/a.ipynb: {where}" in done.stderr
    assert grader(ROOT, "leak-scan", str(leaked)).returncode == 0  # unknown to the course
