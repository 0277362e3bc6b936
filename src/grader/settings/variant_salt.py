"""The course's salt for each student's own model, as nbgrader_config.py sets it and the
notebooks carry it.

A notebook that gives each student a model of their own (gptcourse.variants) must
compute it the same way on the hub, in Colab and on a laptop, where
nbgrader_config.py is not at hand: so the salt is written into the instructor's
notebook, as the line ``COURSE_SALT = "..."`` of a set-up cell, and reaches the
students with the release. `write_salts` (the first step of `make release`) writes
``c.SandboxGrader.variant_salt`` there; `stale_salts` finds a notebook that still
holds another one, which every other command refuses, since its students would
count other models than the grader expects.
"""

import json
import os
import re

from .course import Settings

SALT_LINE = re.compile(r"^COURSE_SALT = (?P<value>.*?)(?P<comment>[ \t]+#.*)?$", re.MULTILINE)


def notebook_salts(path: str) -> list:
    """The values of the ``COURSE_SALT = "..."`` lines of the notebook at `path`, as written."""
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle).get("cells", [])
    return [match.group("value") for cell in cells if cell.get("cell_type") == "code"
            for match in SALT_LINE.finditer("".join(cell.get("source", [])))]


def salt_literal(salt: str) -> str:
    """`salt` as the Python string literal the notebooks hold."""
    return json.dumps(salt)


def stale_salts(settings: Settings) -> list:
    """One line for each instructor notebook whose COURSE_SALT is not the configured salt."""
    wanted = salt_literal(settings.variant_salt)
    stale = []
    for assignment in settings.assignments:
        for path in settings.instructor_notebooks(assignment).values():
            found = [value for value in notebook_salts(path) if value != wanted]
            if found:
                stale.append(f"{os.path.relpath(path, settings.root)} has COURSE_SALT = "
                             f"{found[0]}, but c.SandboxGrader.variant_salt is {wanted}: run "
                             "`make release`, which writes the salt into the notebooks")
    return stale


def write_salts(settings: Settings) -> list:
    """Write the configured salt into every instructor notebook's COURSE_SALT line.

    Returns the paths of the notebooks it changed; the others are left byte for byte.
    """
    wanted = salt_literal(settings.variant_salt)
    changed = []
    for assignment in settings.assignments:
        for path in settings.instructor_notebooks(assignment).values():
            if all(value == wanted for value in notebook_salts(path)):
                continue
            with open(path, encoding="utf-8") as handle:
                notebook = json.load(handle)
            for cell in notebook["cells"]:
                if cell.get("cell_type") != "code":
                    continue
                source = "".join(cell.get("source", []))
                written = SALT_LINE.sub(
                    lambda match: f"COURSE_SALT = {wanted}{match.group('comment') or ''}", source)
                if written != source:
                    cell["source"] = written.splitlines(keepends=True)
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(notebook, handle, indent=1, ensure_ascii=False)
                handle.write("\n")
            changed.append(path)
    return changed
