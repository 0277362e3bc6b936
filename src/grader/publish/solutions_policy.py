"""An assignment's solutions, published once no student can still earn points on it.

`make release-solutions ASSIGNMENT=name` asks the gradebook, under the course's late policy,
how late each student may still hand the assignment in for points
(grader.recording.points_windows: their own due date, then the late days left in their
budget, or the days until a percentage per day has taken everything), and refuses while
anyone can, naming them, the latest first, and the moment it can go out (never, under a
policy that keeps points however late). `--despite-open-students` releases all the same,
only when it names exactly the students who can still hand in for points, and the record
keeps their names. Otherwise the assignment is recorded in solutions-released.csv
(grader.recording.solutions_record; commit it, since `make publish` elsewhere has no
gradebook to ask) and the bundle is published again with the solutions in it. `make
publish` puts the solutions of every assignment the record names into
_publish/solutions/<assignment>/, made again from solutions/ each time
(`solution_notebooks`): the solution code stays, the hidden tests are taken out by
nbgrader's own ClearHiddenTests, as at release, and so are the outputs and the region
markers. Hidden tests are never published, not even after the due date: they stay the
checks of next term's class.
"""

import copy
import datetime
from dataclasses import dataclass

import nbformat

from ..plugins.late import policy_in_words
from ..recording.points_windows import (NOBODY_YET, PointsWindow, latest_first, points_windows,
                                        when_text)
from ..recording.solutions_record import RECORD_FILE, read_record, recorded_time
from ..settings import CourseError, Settings

SHOWN = 5  # the students a refusal names; the rest are counted
OVERRIDE_VARIABLE = "DESPITE_OPEN_STUDENTS"

@dataclass(frozen=True)
class SolutionsPermit:
    """An assignment's solutions may go out: when the last student not named in `open`
    could last earn points on it (aware UTC), and those who still can (the override)."""

    assignment: str
    latest: datetime.datetime
    open: tuple[PointsWindow, ...] = ()

    def open_in_words(self) -> str:
        """'' or 'bob until 2026-12-08 17:00:00 UTC (due ..., 5 late days left); ...'."""
        return "; ".join(window.in_words() for window in self.open)


def named_students(value: str) -> list[str]:
    """The student ids of --despite-open-students: comma-separated, or @path of a file of
    one id per line; CourseError when it names no one or the file cannot be read."""
    if value.startswith("@"):
        try:
            with open(value[1:], encoding="utf-8") as handle:
                names = [line.strip() for line in handle]
        except (OSError, UnicodeDecodeError) as error:
            raise CourseError(f"{OVERRIDE_VARIABLE}={value}: the file cannot be read "
                              f"({error}); nothing was released") from None
    else:
        names = [name.strip() for name in value.split(",")]
    names = [name for name in names if name]
    if not names:
        raise CourseError(f"{OVERRIDE_VARIABLE} names no student: name every student who can "
                          f"still hand in for points, or leave it out; nothing was released")
    return names


def some_windows(windows: list[PointsWindow]) -> str:
    """The first SHOWN windows in words, and how many more."""
    shown = "; ".join(window.in_words() for window in windows[:SHOWN])
    more = len(windows) - SHOWN
    return shown + (f"; and {more} more" if more > 0 else "")


def some_names(names: list[str]) -> str:
    more = len(names) - SHOWN
    return ", ".join(names[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def override_hint(assignment: str, still_open: list[PointsWindow]) -> str:
    """How to release all the same: naming every student who can still hand in."""
    names = sorted(window.student for window in still_open)
    if NOBODY_YET in names:
        return ("no student is in the gradebook yet, so nobody's late days can be counted or "
                "named: import the roster first (make roster)")
    listed = (",".join(names) if len(names) <= SHOWN and not any("," in n for n in names)
              else f"@file (a file of all {len(names)} ids, one per line)")
    return (f"to release them all the same, while they can still hand in for points, name "
            f"every one: make release-solutions ASSIGNMENT={assignment} "
            f"{OVERRIDE_VARIABLE}={listed}")


def why_still_private(settings: Settings, assignment: str, still_open: list[PointsWindow]) -> str:
    """Why the solutions stay private: who holds them back, until when, and the way round."""
    policy = policy_in_words(settings.late_penalties().plugin_inst)
    count = (f"{len(still_open)} student{'s' if len(still_open) != 1 else ''} can still hand "
             f"it in for points")
    if still_open[0].closes is None:
        opening = (f"the solutions of {assignment} can never go out on their own: under the "
                   f"course's late policy ({policy}) a hand-in keeps points however late, and "
                   f"{count}")
    else:
        opening = (f"the solutions of {assignment} stay private until "
                   f"{when_text(still_open[0].closes)}, the last moment anyone can earn points "
                   f"on it under the course's late policy ({policy}): {count}")
    return (f"{opening}: {some_windows(still_open)}; nothing was released\n"
            + override_hint(assignment, still_open))


def check_solutions_may_go_out(settings: Settings, assignment: str,
                               now: datetime.datetime | None = None,
                               despite_open: list[str] | None = None) -> SolutionsPermit:
    """A `SolutionsPermit` once no student can still earn points on `assignment` at `now`
    (aware), or when `despite_open` names exactly those who can; CourseError otherwise,
    naming them, the latest first."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    windows = points_windows(settings, assignment)
    still_open = latest_first([w for w in windows if w.open_at(now)])
    closed = [w.closes for w in windows if not w.open_at(now)]
    latest = max(closed) if closed else now
    if despite_open is None:
        if still_open:
            raise CourseError(why_still_private(settings, assignment, still_open))
        return SolutionsPermit(assignment, latest)
    named, open_names = set(despite_open), {w.student for w in still_open}
    if NOBODY_YET in open_names:
        raise CourseError(override_hint(assignment, still_open) + "; nothing was released")
    if named != open_names:
        wrong = sorted(named - open_names)
        missing = [w for w in still_open if w.student not in named]
        raise CourseError(
            f"{OVERRIDE_VARIABLE} must name exactly the students who can still hand "
            f"{assignment} in for points, and "
            + (f"nobody can: release it without {OVERRIDE_VARIABLE}" if not still_open else
               f"{len(still_open)} can: {some_windows(still_open)}")
            + (f"; named, but not among them: {some_names(wrong)}" if wrong else "")
            + (f"; not named: {some_names(sorted(w.student for w in missing))}"
               if missing else "")
            + "; nothing was released")
    return SolutionsPermit(assignment, latest, tuple(still_open))


def assignments_with_public_solutions(settings: Settings,
                                      now: datetime.datetime | None = None) -> list[str]:
    """The assignments whose solutions the record releases; CourseError for one the course
    does not have, or whose recorded due date is still to come."""
    record = read_record(settings)
    settings.check_assignments(sorted(record))
    now = now or datetime.datetime.now(datetime.timezone.utc)
    for name, row in sorted(record.items()):
        due = recorded_time(row, "latest_due_utc")
        if now < due:
            raise CourseError(f"{RECORD_FILE} releases the solutions of {name}, whose latest "
                              f"due date, {when_text(due)}, is still to come: take its "
                              f"row out, or wait")
    return sorted(record)


def without_markers(source: str) -> str:
    """A solution cell's source without nbgrader's BEGIN/END SOLUTION lines."""
    return "\n".join(line for line in source.split("\n")
                     if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)


def solution_notebooks(settings: Settings, assignment: str) -> dict[str, str]:
    """{file name: notebook text} of the assignment's solutions as students may see them: the
    solution code in, the hidden tests, the outputs and the region markers out."""
    from nbgrader.preprocessors import ClearHiddenTests  # nbgrader's preprocessors load slowly

    clear = ClearHiddenTests(config=settings.config)
    published = {}
    for name, path in settings.instructor_notebooks(assignment).items():
        notebook = nbformat.read(path, as_version=4)
        notebook, _ = clear.preprocess(copy.deepcopy(notebook), {})
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
            cell.source = without_markers(cell.source)
        published[name + ".ipynb"] = nbformat.writes(notebook) + "\n"
    return published
