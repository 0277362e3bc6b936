"""A student's deadline, read in one place: the class's due date plus their extension.

nbgrader keeps an assignment's due date (``Assignment.duedate``) as a naive value that
means UTC, and each student's extension on their ``SubmittedAssignment.extension``
(made for a student who has not handed in yet, too: make extensions). A new term's
shift of the due dates is written into ``duedate`` itself when the term is made
(grader.terms.new_term), so it is read here with the rest. This module is the one
reader of ``.duedate``: every page, push, policy and report asks it, and gets aware UTC
moments (`Deadline`); `stored_due` gives the naive value nbgrader stores, for the
places that write it back or compare it with nbgrader's own naive times.
"""

import datetime
from dataclasses import dataclass
from typing import Any

from nbgrader.api import Gradebook, MissingEntry

UTC = datetime.timezone.utc


def as_utc(moment: datetime.datetime | None) -> datetime.datetime | None:
    """`moment` as an aware UTC datetime: a naive one read as UTC, as nbgrader stores them."""
    if moment is None:
        return None
    if moment.tzinfo is None or moment.tzinfo.utcoffset(moment) is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def naive_utc(moment: datetime.datetime | None) -> datetime.datetime | None:
    """`moment` as nbgrader stores a time: naive, meaning UTC."""
    aware = as_utc(moment)
    return aware.replace(tzinfo=None) if aware is not None else None


@dataclass(frozen=True)
class Deadline:
    """One student's deadline on one assignment (aware UTC; None: no due date)."""

    due: datetime.datetime | None  # the class's due date
    extension: datetime.timedelta | None  # the student's own, None: none
    effective: datetime.datetime | None  # the student's own due date: due plus extension

    @classmethod
    def of(cls, class_due: datetime.datetime | None,
           extension: datetime.timedelta | None = None) -> "Deadline":
        """The deadline of a class due date (naive read as UTC, or aware) and an extension."""
        due = as_utc(class_due)
        effective = None if due is None else due + (extension or datetime.timedelta(0))
        return cls(due, extension, effective)


def class_due(assignment: Any) -> datetime.datetime | None:
    """The class's due date of a gradebook assignment (nbgrader's ``Assignment``, or None
    for one the gradebook lacks), aware UTC; None: none set."""
    return as_utc(assignment.duedate) if assignment is not None else None


def stored_due(assignment: Any) -> datetime.datetime | None:
    """The class's due date as nbgrader stores it (naive UTC), or None."""
    return naive_utc(class_due(assignment))


def deadline_of(assignment: Any, extension: datetime.timedelta | None = None) -> Deadline:
    """The `Deadline` of a gradebook assignment (or None) with a student's extension."""
    return Deadline.of(class_due(assignment), extension)


def student_deadline(gb: Gradebook, assignment: str, student: str) -> Deadline:
    """`student`'s `Deadline` on `assignment` as the open gradebook `gb` holds it: no due
    date when the assignment is not there, no extension when the student has no row."""
    try:
        row = gb.find_assignment(assignment)
    except MissingEntry:
        return Deadline(None, None, None)
    try:
        extension = gb.find_submission(assignment, student).extension
    except MissingEntry:
        extension = None
    return deadline_of(row, extension)
