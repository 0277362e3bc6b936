"""The lines `make release` writes into the instructor's notebooks, so that the students'
copies carry what nbgrader_config.py and _config.yml say, on the hub and off it.

- ``COURSE_SALT = "..."``: the course's salt for each student's own model
  (gptcourse.variants), ``c.StudentVariants.salt``. A notebook must compute
  that model the same way on the hub, in Colab and on a laptop, where
  nbgrader_config.py is not at hand. `stale_salts` finds a notebook that still
  holds another salt, which every other command refuses, since its students would
  count other models than the grader expects.
- ``COURSE_PACKAGE = "gptcourse @ git+URL@vVERSION"``: where the first code cell
  installs the course package from when it is missing (Colab, a laptop): the
  course's repository, ``repository.url`` in ``_config.yml`` (the setting that also
  turns the site's launch buttons on), at the tag ``v<version>`` of the version in
  ``pyproject.toml``, which the instructor pushes with the release. With no
  repository set it is ``None``: the cell then stops where the package is missing
  and tells the student to ask for the install line, and `no_install_line_warning`
  says so to the instructor at release.

`write_release_lines` (the first step of `make release`) writes both; a notebook
that already holds them is left byte for byte, and the students' copies are
generated from these notebooks, so grader and students see the same cells.
"""

import json
import os
import re
import tomllib
from typing import Any

import yaml

from .course import Settings
from .errors import CourseError


def line_pattern(name: str) -> re.Pattern[str]:
    """``NAME = value  # comment`` as a line of a cell: the value and the comment."""
    return re.compile(rf"^{name} = (?P<value>.*?)(?P<comment>[ \t]+#.*)?$", re.MULTILINE)


SALT_LINE = line_pattern("COURSE_SALT")
PACKAGE_LINE = line_pattern("COURSE_PACKAGE")


def code_cells(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [cell for cell in json.load(handle).get("cells", [])
                if cell.get("cell_type") == "code"]


def notebook_values(path: str, pattern: re.Pattern[str]) -> list[str]:
    """The values of the lines `pattern` finds in the notebook at `path`, as written."""
    return [match.group("value") for cell in code_cells(path)
            for match in pattern.finditer("".join(cell.get("source", [])))]


def install_requirement(course_root: str) -> str | None:
    """'gptcourse @ git+URL@vVERSION' for the course in `course_root`, or None when its
    _config.yml names no repository."""
    config = os.path.join(course_root, "_config.yml")
    if not os.path.isfile(config):
        return None
    try:
        with open(config, encoding="utf-8") as handle:
            site = yaml.safe_load(handle) or {}
        url = str((site.get("repository") or {}).get("url") or "").strip().rstrip("/")
        if not url:
            return None
        with open(os.path.join(course_root, "pyproject.toml"), "rb") as handle:
            project = tomllib.load(handle)["project"]
        return f"{project['name']} @ git+{url}@v{project['version']}"
    except (OSError, yaml.YAMLError, tomllib.TOMLDecodeError, KeyError, AttributeError) as error:
        raise CourseError(f"the course's repository cannot be read from {config} and "
                          f"pyproject.toml ({error})") from None


def wanted_values(settings: Settings) -> dict[re.Pattern[str], str]:
    """{pattern: the Python literal its line must hold} for this course."""
    requirement = install_requirement(settings.root)
    return {SALT_LINE: json.dumps(settings.variant_salt),
            PACKAGE_LINE: "None" if requirement is None else json.dumps(requirement)}


def project_version(course_root: str) -> str:
    """The version in the course's pyproject.toml, or '<version>' when it cannot be read."""
    try:
        with open(os.path.join(course_root, "pyproject.toml"), "rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError):
        return "<version>"


def no_install_line_warning(settings: Settings) -> str | None:
    """What the instructor must know when the notebooks' first cell promises an install off
    the hub (it holds a COURSE_PACKAGE line) but _config.yml names no repository to install
    from; None when a repository is set or no notebook has the line."""
    if install_requirement(settings.root) is not None:
        return None
    promising = sorted(os.path.relpath(path, settings.root)
                       for assignment in settings.assignments
                       for path in settings.instructor_notebooks(assignment).values()
                       if notebook_values(path, PACKAGE_LINE))
    if not promising:
        return None
    return ("warning: _config.yml names no repository (repository.url is empty), so the "
            f"released notebooks cannot install the course package {settings.package} off the "
            "hub.\n"
            "  In Colab or on a laptop, the first cell of " + ", ".join(promising) + " stops "
            "and tells the student to ask you for the install line.\n"
            "  For students off the hub: set repository.url in _config.yml to the course's "
            "repository, push the tag v" + project_version(settings.root) + ", and run "
            "`make release` again. For a class that works only on the hub, nothing is missing.")


def stale_salts(settings: Settings) -> list[str]:
    """One line for each instructor notebook whose COURSE_SALT is not the configured salt."""
    wanted = json.dumps(settings.variant_salt)
    stale = []
    for assignment in settings.assignments:
        for path in settings.instructor_notebooks(assignment).values():
            found = [value for value in notebook_values(path, SALT_LINE) if value != wanted]
            if found:
                stale.append(f"{os.path.relpath(path, settings.root)} has COURSE_SALT = "
                             f"{found[0]}, but c.StudentVariants.salt is {wanted}: run "
                             "`make release`, which writes the salt into the notebooks")
    return stale


def write_release_lines(settings: Settings) -> list[tuple[str, str]]:
    """Write the course's COURSE_SALT and COURSE_PACKAGE lines into every instructor
    notebook; returns (path, line) for each line changed. Other notebooks are left byte
    for byte."""
    wanted = wanted_values(settings)
    changed = []
    for assignment in settings.assignments:
        for path in settings.instructor_notebooks(assignment).values():
            if all(value == literal for pattern, literal in wanted.items()
                   for value in notebook_values(path, pattern)):
                continue
            with open(path, encoding="utf-8") as handle:
                notebook = json.load(handle)
            for cell in notebook["cells"]:
                if cell.get("cell_type") != "code":
                    continue
                source = written = "".join(cell.get("source", []))
                for pattern, literal in wanted.items():
                    name, before = pattern.pattern[1:].split(" ", 1)[0], written
                    written = pattern.sub(
                        lambda m, n=name, v=literal: f"{n} = {v}{m.group('comment') or ''}",
                        written)
                    if written != before:
                        changed.append((path, f"{name} = {literal}"))
                if written != source:
                    cell["source"] = written.splitlines(keepends=True)
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(notebook, handle, indent=1, ensure_ascii=False)
                handle.write("\n")
    return sorted(set(changed))
