"""The lines `make release` writes into the instructor's notebooks, so that the students'
copies carry what nbgrader_config.py says, on the hub and off it.

- ``COURSE_SALT = "..."``: the course's salt for each student's own model
  (gptcourse.variants), ``c.StudentVariants.salt``. A notebook must compute
  that model the same way on the hub, in Colab and on a laptop, where
  nbgrader_config.py is not at hand. `stale_salts` finds a notebook that still
  holds another salt, which every other command refuses, since its students would
  count other models than the grader expects.
- ``COURSE_PACKAGE = "gptcourse @ SITE/packages/gptcourse-VERSION-py3-none-any.whl#sha256=..."``:
  where the first code cell installs the course package from when it is missing
  (Colab, a laptop): the students' wheel on the published site, ``c.CourseSite.url``
  (site.py), its version and hash pinned, so pip installs that wheel or nothing.
  The wheel is built here as `make publish` builds it (course_wheel.py, the same
  bytes), and `make publish` refuses a bundle whose wheel is not the one the
  notebooks name. With no site set it is ``None``: the cell then stops where the
  package is missing and tells the student to ask for the install line, and
  `no_install_line_warning` says so to the instructor at release.

`write_release_lines` (the first step of `make release`) writes both, after refusing
an install or launch address that is the course's own repository (it holds
solutions/); a notebook that already holds them is left byte for byte, and the
students' copies are generated from these notebooks, so grader and students see the
same cells.
"""

import json
import os
import re
import tempfile
from typing import Any

import yaml

from .course import Settings
from .course_wheel import CourseWheel, build_course_wheel
from .errors import CourseError
from .site import CourseSite, own_repository_problems, site_url


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


def launch_repository(course_root: str) -> str:
    """repository.url of the course's _config.yml, the repository the site's launch buttons
    open ('' when none is set)."""
    config = os.path.join(course_root, "_config.yml")
    if not os.path.isfile(config):
        return ""
    try:
        with open(config, encoding="utf-8") as handle:
            site = yaml.safe_load(handle) or {}
        return str((site.get("repository") or {}).get("url") or "").strip()
    except (OSError, yaml.YAMLError, AttributeError) as error:
        raise CourseError(f"the launch buttons' repository cannot be read from {config} "
                          f"({error})") from None


def public_address_problems(settings: Settings) -> list[str]:
    """The install and launch addresses that are the course's own repository (site.py)."""
    return own_repository_problems(settings.root, {
        "c.CourseSite.url (nbgrader_config.py), where the notebooks install the package from":
            CourseSite(config=settings.config).url,
        "repository.url (_config.yml), which the launch buttons open":
            launch_repository(settings.root)})


def install_requirement(settings: Settings, wheel: CourseWheel | None = None) -> str | None:
    """pip's line for the students' wheel on the published site, its hash pinned, or None when
    c.CourseSite.url is empty. `wheel`: the wheel built already (else it is built here)."""
    site = site_url(settings.config)
    if not site:
        return None
    if wheel is None:
        with tempfile.TemporaryDirectory(prefix="release-wheel-") as folder:
            return build_course_wheel(settings.root, folder).requirement(site)
    return wheel.requirement(site)


def wanted_values(settings: Settings, wheel: CourseWheel | None = None
                  ) -> dict[re.Pattern[str], str]:
    """{pattern: the Python literal its line must hold} for this course."""
    requirement = install_requirement(settings, wheel)
    return {SALT_LINE: json.dumps(settings.variant_salt),
            PACKAGE_LINE: "None" if requirement is None else json.dumps(requirement)}


def no_install_line_warning(settings: Settings) -> str | None:
    """What the instructor must know when the notebooks' first cell promises an install off
    the hub (it holds a COURSE_PACKAGE line) but no published site is set to install from;
    None when c.CourseSite.url is set or no notebook has the line."""
    if site_url(settings.config):
        return None
    promising = sorted(os.path.relpath(path, settings.root)
                       for assignment in settings.assignments
                       for path in settings.instructor_notebooks(assignment).values()
                       if notebook_values(path, PACKAGE_LINE))
    if not promising:
        return None
    return ("warning: c.CourseSite.url is empty in nbgrader_config.py, so the released "
            f"notebooks cannot install the course package {settings.package} off the hub.\n"
            "  In Colab or on a laptop, the first cell of " + ", ".join(promising) + " stops "
            "and tells the student to ask you for the install line.\n"
            "  For students off the hub: set c.CourseSite.url to the address where "
            "_publish/ is served (docs/publishing.md), run `make release` again, then "
            "`make publish`. For a class that works only on the hub, nothing is missing.")


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
    for byte. CourseError, with nothing written, for an install or launch address that is
    the course's own repository."""
    problems = public_address_problems(settings)
    if problems:
        raise CourseError("\n".join(problems))
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
