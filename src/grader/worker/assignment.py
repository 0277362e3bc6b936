"""One assignment as every worker grades it: prepared once per run, as plain data.

`prepare_assignment` reads the instructor's notebooks and finds the course
package's functions that are stubs in the sandbox, once, on the instructor's
machine; each `Job` then carries the same `Assignment` to whichever worker
grades it.
"""

import ast
import importlib.util
import os
from dataclasses import dataclass

import nbformat

from ..cells import nbgrader_meta
from ..checks import answer_names
from ..sandbox import sandboxed_package
from ..settings import CourseError, Limits, Settings, stale_salts


@dataclass(frozen=True)
class Assignment:
    """What every worker needs to know of the assignment; picklable, no path of the course."""

    name: str
    instructor_texts: dict[str, str]  # notebook name -> the instructor's notebook, JSON text
    limits: Limits
    package: str  # the course package students import
    blocked: tuple[str, ...] = ()  # its functions that are stubs in the sandbox

    def package_copy(self) -> str | None:
        """The folder of the package with the blocked functions as stubs (made once per
        process), bound over the package in the sandbox; None when none is blocked."""
        return sandboxed_package(self.package, self.blocked) if self.blocked else None


def prepare_assignment(settings: Settings, name: str, limits: Limits) -> Assignment:
    """The Assignment `name` of the course, graded under `limits`.

    Refused while an instructor notebook holds another salt than the course's
    (stale_salts): its students would have counted other models than the checks expect.
    """
    paths = settings.instructor_notebooks(name)
    stale = stale_salts(settings)
    if stale:
        raise CourseError("\n".join(stale))
    return Assignment(name, read_instructor_notebooks(paths), limits, settings.package,
                      blocked_functions(settings, paths))


def read_instructor_notebooks(paths: dict[str, str]) -> dict[str, str]:
    """{name: JSON text} of the instructor's notebooks {name: path}: an `Assignment`'s
    `instructor_texts` from a `HandIn`'s (or the course's) `instructor_notebooks`."""
    texts = {}
    for name, path in paths.items():
        with open(path, encoding="utf-8") as handle:
            texts[name] = handle.read()
    return texts


def blocked_functions(settings: Settings, notebooks: dict[str, str]) -> tuple[str, ...]:
    """The course package's functions that student code may not use while graded.

    These are the package's functions that an assignment asks students to
    write (top-level names bound by the instructor's answer cells that the
    package also defines), plus `c.SandboxGrader.also_blocked`, the package
    functions that would compute an answer. Found without importing the package.
    """
    if not settings.package:
        raise CourseError("c.SandboxGrader.course_package is not set in nbgrader_config.py: "
                          "name the package the students import (docs/another-course.md)")
    spec = importlib.util.find_spec(settings.package)
    if spec is None or not spec.submodule_search_locations:
        raise CourseError(f"the course package {settings.package!r} is not installed")
    defined = set()
    for folder in spec.submodule_search_locations:
        for directory, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(directory, name), encoding="utf-8") as handle:
                        tree = ast.parse(handle.read())
                    defined |= {node.name for node in tree.body
                                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    answers = set()
    for path in notebooks.values():
        nb = nbformat.read(path, as_version=4)
        answers |= answer_names([c.source for c in nb.cells
                                 if c.cell_type == "code" and nbgrader_meta(c).get("solution")])
    unknown = sorted(set(settings.also_blocked) - defined)
    if unknown:
        raise CourseError(f"c.SandboxGrader.also_blocked names {', '.join(unknown)}, which "
                          f"{settings.package} does not define")
    return tuple(sorted((answers & defined) | set(settings.also_blocked)))
