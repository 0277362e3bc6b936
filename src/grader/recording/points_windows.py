"""How late each student may still hand an assignment in for points (make release-solutions,
make extensions).

A student's window on an assignment closes at the last moment a hand-in of it still earns
points under the course's late policy, as grader.plugins.late.points_end asks the policy
itself: the student's own due date (the class's plus their extension), then whatever the
policy still gives after it: the late days left in their budget once their other
assignments have spent theirs, as the policy charges them, or the days until a percentage
per day has taken everything. Under nbgrader's "none", or a percentage per day with a floor
above 0%, it never closes. Everything comes from the gradebook: due dates, extensions and
hand-in times; a student who has handed in nothing has the whole budget.
"""

import datetime
import os
from dataclasses import dataclass

from nbgrader.api import Gradebook, MissingEntry, SubmittedAssignment
from nbgrader.plugins import LateSubmissionPlugin

from ..deadlines import class_due
from ..plugins.late import Lateness, late_charges, points_end
from ..safe_text import shown_id
from ..settings import CourseError, Settings, shown_url

UTC = datetime.timezone.utc
NOBODY_YET = ""  # the student of the one window when the gradebook names no student yet
# {(student, assignment): the extension, None for none}
Extensions = dict[tuple[str, str], datetime.timedelta | None]


def aware(naive_utc: datetime.datetime) -> datetime.datetime:
    """A time as nbgrader stores it (naive UTC), aware."""
    return naive_utc.replace(tzinfo=UTC)


def when_text(moment: datetime.datetime) -> str:
    """'2026-12-08 17:00:00 UTC'."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


@dataclass(frozen=True)
class PointsWindow:
    """How late one student may hand in one assignment and still earn points."""

    student: str
    assignment: str
    due: datetime.datetime  # the student's own due date, aware UTC
    closes: datetime.datetime | None  # the last moment a hand-in earns points; None: never
    late_days_left: int | None  # under a late-day budget, the days left for it; else None

    def open_at(self, now: datetime.datetime) -> bool:
        """Whether a hand-in after `now` (aware) may still earn points."""
        return self.closes is None or now < self.closes

    def closes_later_than(self, moment: datetime.datetime | None) -> bool:
        """Whether it closes after `moment` (None: never closes)."""
        if self.closes is None:
            return moment is not None
        return moment is not None and self.closes > moment

    def until_text(self) -> str:
        """'until 2026-12-08 17:00:00 UTC' or 'however late'."""
        return "however late" if self.closes is None else f"until {when_text(self.closes)}"

    def terms(self) -> str:
        """'(due 2026-12-03 17:00:00 UTC, 5 late days left)'."""
        days = ("" if self.late_days_left is None else
                f", {self.late_days_left} late day{'s' if self.late_days_left != 1 else ''} left")
        return f"(due {when_text(self.due)}{days})"

    def in_words(self) -> str:
        """'bob until 2026-12-08 17:00:00 UTC (due 2026-12-03 17:00:00 UTC, 5 late days
        left)'."""
        who = shown_id(self.student) if self.student != NOBODY_YET else (
            "a student not in the gradebook")
        return f"{who} {self.until_text()} {self.terms()}"


def latest_first(windows: list[PointsWindow]) -> list[PointsWindow]:
    """Those that never close first, then the latest to close, then by student."""
    return sorted(windows, key=lambda w: (w.closes is not None,
                                          -(w.closes.timestamp() if w.closes else 0), w.student))


def window_of(plugin: LateSubmissionPlugin, student: str, lateness: list[Lateness],
              assignment: str) -> PointsWindow:
    """The student's `PointsWindow` on `assignment` from their `Lateness` records (one per
    assignment of the course; that of `assignment` has a due date)."""
    mine = next(e for e in lateness if e.assignment == assignment)
    on_time = [e for e in lateness if e.assignment != assignment] + [
        Lateness(assignment, mine.class_due, mine.extension, mine.due)]
    left = late_charges(plugin, on_time)[assignment].late_days_left
    closes = points_end(plugin, student, lateness, assignment)
    return PointsWindow(student, assignment, aware(mine.due), closes and aware(closes), left)


def course_lateness(gb: Gradebook, student: str,
                    extensions: Extensions | None = None) -> list[Lateness]:
    """A `Lateness` for every assignment of the gradebook, as `student` stands: their
    extensions (or those of `extensions`, {(student, assignment): extension}, where it
    names one) and hand-in times."""
    submitted = {s.assignment.name: s for s in gb.db.query(SubmittedAssignment)
                 .filter(SubmittedAssignment.student_id == student)}
    records = []
    for row in gb.assignments:
        submission = submitted.get(row.name)
        extension = submission.extension if submission else None
        if extensions is not None and (student, row.name) in extensions:
            extension = extensions[student, row.name]
        records.append(Lateness(row.name, class_due(row), extension,
                                submission.timestamp if submission else None))
    return records


def known_students(settings: Settings, gb: Gradebook) -> set[str]:
    """Students of the gradebook (the roster imported, or graded) and of submitted/."""
    students = {s.id for s in gb.students}
    if os.path.isdir(settings.submitted):
        students |= {name for name in os.listdir(settings.submitted)
                     if os.path.isdir(os.path.join(settings.submitted, name))}
    return students


def gradebook_exists(settings: Settings) -> bool:
    """False only for an SQLite gradebook whose file is not there (opening would create it)."""
    prefix = "sqlite:///"
    if not settings.db_url.startswith(prefix):
        return True
    return os.path.isfile(settings.db_url[len(prefix):])


def points_windows(settings: Settings, assignment: str) -> list[PointsWindow]:
    """Every known student's `PointsWindow` on `assignment`, latest first, under the course's
    late policy; CourseError when the gradebook gives it no due date. With no student known
    yet, the one window of a student with nothing handed in, NOBODY_YET's."""
    fix = (f"record one with make release ASSIGNMENT={assignment} DUEDATE=\"2026-12-01 "
           f"17:00:00 UTC\" (make extensions for students' own)")
    if not gradebook_exists(settings):
        raise CourseError(f"no gradebook at {shown_url(settings.db_url)}, so no student has a "
                          f"due date for {assignment}: {fix}; nothing was released")
    plugin = settings.late_penalties().plugin_inst
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            row = gb.find_assignment(assignment)
        except MissingEntry:
            row = None
        if class_due(row) is None:
            raise CourseError(f"nobody has a due date for {assignment} in the gradebook "
                              f"({shown_url(settings.db_url)}), so no one's can have passed: "
                              f"{fix}; nothing was released")
        students = sorted(known_students(settings, gb))
        if not students:
            records = [Lateness(a.name, class_due(a), None, None) for a in gb.assignments]
            return [window_of(plugin, NOBODY_YET, records, assignment)]
        return latest_first([window_of(plugin, student, course_lateness(gb, student),
                                       assignment) for student in students])
