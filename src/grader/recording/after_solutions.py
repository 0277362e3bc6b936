"""Extensions that reach past an assignment's public solutions (make extensions).

Once an assignment's solutions are public (solutions-released.csv, solutions_record.py), an
extension must not let a student earn points on it after the moment they went out: they
could hand in what they read. For each student whose extensions the file changes, each such
assignment's `PointsWindow` (points_windows.py) is compared before and after the file: the
change reaches past the solutions when it moves the student's own due date, or the last
moment a hand-in earns points, later and past the moment they went out. That includes an
extension of another assignment that frees late days the student can then spend on this one,
as a late-day budget charges them. `make extensions` refuses the whole file then, naming each
student, assignment and moment, unless told (`--despite-public-solutions`), and then says so.
"""

import datetime
from dataclasses import dataclass

from nbgrader.api import Gradebook, SubmittedAssignment
from nbgrader.plugins import LateSubmissionPlugin

from ..deadlines import class_due
from ..safe_text import shown_id
from ..settings import Settings
from .points_windows import Extensions, PointsWindow, course_lateness, when_text, window_of
from .solutions_record import solutions_public_since

FLAG = "--despite-public-solutions"
MAKE_VARIABLE = "DESPITE_PUBLIC_SOLUTIONS"


@dataclass(frozen=True)
class PastSolutions:
    """A student whom the extensions file lets earn points on an assignment after its
    solutions went out."""

    window: PointsWindow  # the student's window on the assignment, with the file's extensions
    released: datetime.datetime  # when the assignment's solutions went out, aware UTC
    source: str  # the extensions file
    lines: tuple[int, ...]  # its lines that change the student's extensions

    def in_words(self) -> str:
        """'bob, parameters: the extensions let bob hand it in for points until ... (due ...),
        after its solutions went out, 2026-12-05 09:30:00 UTC (extensions.csv, line 3)'."""
        window = self.window
        lines = ", ".join(map(str, self.lines))
        where = (f"{self.source}, line{'s' if len(self.lines) != 1 else ''} {lines}"
                 if self.lines else self.source)
        who = shown_id(window.student)
        return (f"{who}, {window.assignment}: the extensions let {who} "
                f"hand it in for points {window.until_text()} {window.terms()}, after its "
                f"solutions went out, {when_text(self.released)} ({where})")


def reaches_past(before: PointsWindow, after: PointsWindow, released: datetime.datetime) -> bool:
    """Whether `after` moves the due date or the end of points later than `before`, past
    `released`."""
    return ((after.due > before.due and after.due > released)
            or (after.closes_later_than(before.closes) and after.closes_later_than(released)))


def extensions_past_solutions(settings: Settings, gb: Gradebook, plugin: LateSubmissionPlugin,
                              wanted: dict[tuple[str, str], tuple[datetime.timedelta, int]],
                              source: str) -> list[PastSolutions]:
    """Every student and assignment with public solutions whose window the extensions file
    would move past the moment they went out. `wanted`: the file, {(student, assignment):
    (extension, its line)}; the gradebook's extensions are what it holds now."""
    public = solutions_public_since(settings)
    dated = {a.name for a in gb.assignments if class_due(a) is not None}
    public = {name: moment for name, moment in public.items() if name in dated}
    if not public:
        return []
    now: Extensions = {(s.student_id, s.assignment.name): s.extension
                       for s in gb.db.query(SubmittedAssignment)
                       .filter(SubmittedAssignment.extension.isnot(None))}
    changed = {key for key in set(now) | set(wanted)
               if now.get(key) != (wanted[key][0] if key in wanted else None)}
    found = []
    for student in sorted({s for s, _ in changed}):
        extensions: Extensions = {key: (wanted[key][0] if key in wanted else None)
                                  for key in set(now) | set(wanted) if key[0] == student}
        before, after = course_lateness(gb, student), course_lateness(gb, student, extensions)
        lines = tuple(sorted(wanted[key][1] for key in changed
                             if key[0] == student and key in wanted))
        for assignment, released in sorted(public.items()):
            moved = window_of(plugin, student, after, assignment)
            if reaches_past(window_of(plugin, student, before, assignment), moved, released):
                found.append(PastSolutions(moved, released, source, lines))
    return found
