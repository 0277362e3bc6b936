"""The grader, a distribution of its own (src/grader/pyproject.toml): every wing in it, its
template too, and nothing of the course's package."""

import os
import tomllib

import pytest

import grader
from testsupport.distributions import build_wheel, project_copy, wheel_files, wheel_metadata

PACKAGE = os.path.dirname(grader.__file__)
PROJECT = os.path.join(PACKAGE, "pyproject.toml")


def package_folders():
    """The dotted names of src/grader and of each folder under it that is a package
    (an __init__.py in it and in every folder above it)."""
    found = []
    for directory, folders, names in os.walk(PACKAGE):
        if "__init__.py" not in names:
            folders.clear()  # not a package, nor anything below it (build/, templates/)
            continue
        relative = os.path.relpath(directory, PACKAGE)
        found.append("grader" if relative == "." else "grader." + relative.replace(os.sep, "."))
    return sorted(found)


def test_the_grader_distribution_lists_every_wing_of_the_package():
    with open(PROJECT, "rb") as handle:
        project = tomllib.load(handle)
    assert sorted(project["tool"]["setuptools"]["packages"]) == package_folders()
    assert project["tool"]["setuptools"]["package-dir"] == {"grader": "."}


def test_the_grader_distribution_needs_neither_torch_nor_the_course_package():
    with open(PROJECT, "rb") as handle:
        project = tomllib.load(handle)["project"]
    needed = {name.lower() for name in project["dependencies"]}
    assert project["name"] == "course-grader"
    assert {"nbgrader", "nbformat", "nbconvert", "traitlets"} <= needed
    assert not needed & {"torch", "numpy", "tiktoken", "gptcourse"}


@pytest.mark.slow  # builds a wheel
def test_the_grader_wheel_builds_and_holds_its_wings_and_the_feedback_template(tmp_path):
    project = project_copy(str(tmp_path / "project"), "src/grader")
    files = wheel_files(build_wheel(os.path.join(project, "src", "grader"), str(tmp_path)))
    assert "grader/templates/feedback/index.html.j2" in files
    assert "grader/sandbox/inside/main.py" in files
    modules = {os.path.dirname(name).replace("/", ".") for name in files
               if name.endswith("/__init__.py")}
    assert modules == set(package_folders())
    assert not [name for name in files if name.startswith("gptcourse/")
                or name.endswith("pyproject.toml")]
    info = wheel_metadata(os.path.join(str(tmp_path), next(
        n for n in os.listdir(tmp_path) if n.endswith(".whl"))))
    assert info["Name"] == "course-grader"
