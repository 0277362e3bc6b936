"""An assignment's due date, recorded in the gradebook (make release DUEDATE=...)."""

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc

from ..settings import CourseError, Settings


def parse_due_date(text: str) -> object:
    """A due date as nbgrader stores it (naive UTC), from text such as '2026-12-01 17:00 UTC'."""
    try:
        return parse_utc(text)
    except (ValueError, OverflowError) as error:
        raise CourseError(f"due date {text!r} is not a date and time ({error}); "
                          f"write it as \"2026-12-01 17:00:00 UTC\"") from None


def set_due_date(settings: Settings, assignment: str, text: str) -> str:
    """Records the due date of a released assignment; returns what was done, in words."""
    due = None if text.strip().lower() == "none" else parse_due_date(text)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise CourseError(f"assignment {assignment!r} is not in the gradebook: "
                              f"run make release first") from None
        gb.update_or_create_assignment(assignment, duedate=due)
    if due is None:
        return f"{assignment}: no due date"
    return f"{assignment}: due {due:%Y-%m-%d %H:%M:%S} UTC"
