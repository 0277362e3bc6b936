"""The grader, a distribution of its own (src/grader/pyproject.toml): every wing in it, its
template too, and nothing of the course's package; torch loaded only once a value is a
tensor."""

import os
import subprocess
import sys
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


# the grader's command modules, a plain answer decoded, then a tensor sent and decoded
WITHOUT_TORCH_UNTIL_A_TENSOR = """
import json, sys
import grader.cli, grader.engines, grader.service, grader.service.queue.loop, grader.worker
from grader.checks import decode
from grader.checks.values import mirror_changes
from grader.sandbox.inside.encoding import Encoder

plain = decode(json.loads(json.dumps(Encoder().encode({"a": (1, 2.5), "b": [None, "x"]}))))
mirror_changes((plain,), {}, [], {})
print("torch" in sys.modules, "numpy" in sys.modules, plain)
import torch  # the kernel's side: a tensor answer

sent = torch.tensor([[1.5, -2.0], [0.25, 8.0]], dtype=torch.float64)
back = decode(json.loads(json.dumps(Encoder().encode(sent))))
print(type(back).__name__, back.dtype, tuple(back.shape), torch.equal(back, sent))
"""


@pytest.mark.slow  # a fresh interpreter
def test_the_commands_load_no_torch_until_an_answer_is_a_tensor_which_still_round_trips():
    done = subprocess.run([sys.executable, "-I", "-c", WITHOUT_TORCH_UNTIL_A_TENSOR],
                          capture_output=True, text=True, timeout=300, cwd=PACKAGE)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["False False {'a': (1, 2.5), 'b': [None, 'x']}",
                                        "Tensor torch.float64 (2, 2) True"]
