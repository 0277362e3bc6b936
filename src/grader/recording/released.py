"""The assignment as released: what the gradebook recorded when `make release` ran.

The grader takes its checks from solutions/; it grades only while they are the
checks that were released to students.
"""

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from ..settings import CourseError, Settings, shown_url


def check_released(settings: Settings, assignment: str, notebooks: dict[str, str]) -> None:
    """The assignment must be in the gradebook with the same notebooks and checks as in
    solutions/ (nbgrader generate_assignment); CourseError says what to run otherwise."""
    try:
        with Gradebook(settings.db_url, settings.course_id) as gb:
            try:
                recorded = gb.find_assignment(assignment)
            except MissingEntry:
                raise CourseError(f"assignment {assignment!r} is not in the gradebook "
                                  f"({shown_url(settings.db_url)}): release it first "
                                  "(make release, which runs nbgrader generate_assignment)") from None
            names = {nb.name for nb in recorded.notebooks}
    except CourseError:
        raise
    except Exception as error:  # noqa: BLE001 (database unreachable, bad URL, ...)
        raise CourseError(f"the gradebook {shown_url(settings.db_url)} cannot be opened: "
                          f"{error}") from None
    if names != set(notebooks):
        raise CourseError(f"the gradebook's notebooks of {assignment!r} ({sorted(names)}) differ "
                          f"from solutions/ ({sorted(notebooks)}): run make release")
    changed = unreleased_changes(settings, assignment, notebooks)
    if changed:
        raise CourseError(f"solutions/{assignment} differs from what was released "
                          f"({'; '.join(changed[:5])}): run make release, so that students "
                          f"and the grader see the same checks")


def unreleased_changes(settings: Settings, assignment: str, notebooks: dict[str, str]
                       ) -> list[str]:
    """What differs between solutions/<assignment> and the gradebook's record of its release.

    `make release` (nbgrader generate_assignment) records every check's points and
    the source of every check and read-only cell; the grader takes its checks from
    solutions/, so an edit there that was not released would grade students against
    checks they never saw (and scores above the released maximum).
    """
    changes = []
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for name, path in sorted(notebooks.items()):
            recorded = gb.find_notebook(name, assignment)
            points = {c.name: c.max_score for c in recorded.grade_cells}
            sources = {c.name: c.source for c in recorded.source_cells}
            now_points, now_sources = {}, {}
            for cell in nbformat.read(path, as_version=4).cells:
                meta = cell.metadata.get("nbgrader", {})
                grade_id = meta.get("grade_id")
                if not grade_id:
                    continue
                if meta.get("grade"):
                    now_points[grade_id] = float(meta.get("points", 0))
                if (meta.get("grade") or meta.get("locked")) and not meta.get("solution"):
                    now_sources[grade_id] = cell.source
            for grade_id in sorted(set(points) | set(now_points)):
                if grade_id not in now_points:
                    changes.append(f"{name}: check {grade_id} removed")
                elif grade_id not in points:
                    changes.append(f"{name}: check {grade_id} added")
                elif points[grade_id] != now_points[grade_id]:
                    changes.append(f"{name}: {grade_id} worth {now_points[grade_id]:g} points, "
                                   f"released with {points[grade_id]:g}")
            for grade_id, source in now_sources.items():
                if grade_id in sources and sources[grade_id] != source:
                    changes.append(f"{name}: cell {grade_id} edited")
    return changes
