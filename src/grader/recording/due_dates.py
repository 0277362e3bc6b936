"""An assignment's due date, recorded in the gradebook (make release DUEDATE=...)."""

from datetime import datetime

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc

from ..settings import CourseError, Settings
from .late_penalties import assign_late_penalties


def parse_due_date(text: str) -> datetime:
    """A due date as nbgrader stores it (naive UTC), from text such as '2026-12-01 17:00 UTC'."""
    try:
        return parse_utc(text)
    except (ValueError, OverflowError) as error:
        raise CourseError(f"due date {text!r} is not a date and time ({error}); "
                          f"write it as \"2026-12-01 17:00:00 UTC\"") from None


def set_due_date(settings: Settings, assignment: str, text: str) -> str:
    """Records the due date of a released assignment and charges the late penalties of its
    students again; returns what was done, in words.

    A due date cannot be removed while students have extensions of it (nbgrader
    counts an extension from the due date).
    """
    due = None if text.strip().lower() == "none" else parse_due_date(text)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise CourseError(f"assignment {assignment!r} is not in the gradebook: "
                              f"run make release first") from None
        submissions = gb.assignment_submissions(assignment)
        extended = sorted(s.student_id for s in submissions if s.extension is not None)
        if due is None and extended:
            raise CourseError(f"{assignment} cannot lose its due date while "
                              f"{len(extended)} student(s) have an extension of it "
                              f"({', '.join(extended)}): remove them from the extensions "
                              f"file and run make extensions first")
        gb.update_or_create_assignment(assignment, duedate=due)
        late_penalties = settings.late_penalties()
        try:
            for student in sorted({s.student_id for s in submissions}):
                assign_late_penalties(gb.db, student, late_penalties)
            gb.db.commit()
        except BaseException:
            gb.db.rollback()
            raise
    if due is None:
        return f"{assignment}: no due date"
    moved = (f"; the {len(extended)} extension(s) of it count from this date (make "
             f"extensions again for a new_due that should stay put)" if extended else "")
    return f"{assignment}: due {due:%Y-%m-%d %H:%M:%S} UTC{moved}"
