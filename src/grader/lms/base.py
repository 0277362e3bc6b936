"""What an LMS is to the grader: `Platform`, the base class of one class per LMS.

A platform knows its "download all submissions" zip (the pattern of each
file's name and how it is read, the layout for messages), how one of its files
is matched to a student of the roster, what its late flag means, how the
feedback zip goes back to it, and its gradebook CSV where the grader reads or
writes one (`GradebookCsv`). Collecting, feedback, the exports, the roster and
the command line ask the platform; none of them names an LMS.
"""

import abc
import datetime
import re
from dataclasses import dataclass
from typing import ClassVar, Protocol

from .names import LmsFileName, comparable_name


class RosterPerson(Protocol):
    """A student of the roster, as a platform matches one (reports' `Person`)."""

    id: str
    first_name: str
    last_name: str
    section: str
    lms_user_id: str

    @property
    def name(self) -> str: ...


@dataclass(frozen=True)
class GradebookCsv:
    """An LMS's gradebook as a CSV: the columns the roster reads from the LMS's export and
    the exports write back for its import, and the rows of the export that are no student."""

    student: str  # the student's sortable name, "Last, First"
    user_id: str  # the LMS's user id: the roster's lms_user_id
    sis_user_id: str  # the institution's id of the student: the roster's sis_user_id
    login_id: str  # the course's student id
    section: str
    points_possible: str  # the first cell of the row of each assignment's points
    test_student: str  # the LMS's own test student, not one of the class

    @property
    def columns(self) -> list[str]:
        """The person's columns, in the LMS's order."""
        return [self.student, self.user_id, self.sis_user_id, self.login_id, self.section]

    @property
    def identifying(self) -> list[str]:
        """The columns that tell the export from the course's own roster."""
        return [self.student, self.user_id, self.login_id]


class Platform(abc.ABC):
    """One LMS. A subclass per LMS sets the class attributes and the abstract methods, and
    overrides the others where its LMS differs; the registry (registry.py) lists the
    subclasses."""

    name: ClassVar[str]  # as --lms and the manifest's lms column write it
    title: ClassVar[str]  # as the messages write it
    pattern: ClassVar[re.Pattern[str]]  # a file's name in the zip; named groups `name`,
    # `lms_user_id`, `file_name`, and `late`, `attachment_id` where the names have them
    layout: ClassVar[str]  # the pattern as the messages show it
    matched_by: ClassVar[str]  # the roster's columns a file is matched with, for messages
    id_name: ClassVar[str] = "user id"  # the LMS's number for a student, as messages name it
    upload_page: ClassVar[str]  # where in the LMS the feedback zip is uploaded
    upload_action: ClassVar[str]  # the button or link that takes the zip
    gradebook: ClassVar[GradebookCsv | None] = None  # None: no gradebook CSV for this LMS

    def read_name(self, entry: str) -> LmsFileName | None:
        """The parts of the zip entry name `entry` as this LMS writes them, or None if it does
        not follow this LMS's names."""
        match = self.pattern.match(entry)
        if not match:
            return None
        parts = match.groupdict()
        return LmsFileName(self.name, entry, parts["name"].strip(), parts["lms_user_id"],
                           parts.get("attachment_id") or "", bool(parts.get("late")),
                           parts["file_name"])

    @abc.abstractmethod
    def roster_key(self, person: RosterPerson) -> str:
        """What a file's name is matched with in the roster's row of `person`; "" for none."""

    @abc.abstractmethod
    def file_key(self, name: LmsFileName) -> str:
        """What of the file `name` is matched with `roster_key`."""

    def name_key(self, person: RosterPerson) -> str:
        """The name of `person` as this LMS writes it in its file names, compared as
        `file_name_key` is (for the closest names of a file that matches nobody)."""
        return comparable_name(f"{person.first_name} {person.last_name}")

    def file_name_key(self, name: LmsFileName) -> str:
        """The student's name in the file `name`, compared as `name_key` is."""
        return comparable_name(name.student_name)

    def on_roster(self, person: RosterPerson) -> str:
        """The roster's student `person` as the messages name them, with what a file is
        matched with."""
        return f"{person.first_name} {person.last_name} ({person.id})"

    def unmatchable(self, name: LmsFileName) -> str | None:
        """Why no student can be matched to the file `name` at all, or None."""
        return None

    @abc.abstractmethod
    def who(self, name: LmsFileName) -> str:
        """The student of the file `name`, as the messages name them."""

    def handed_in_at(self, name: LmsFileName, moment: datetime.datetime,
                     due: datetime.datetime | None
                     ) -> tuple[datetime.datetime, str | None]:
        """(when the file `name`, which the zip dates `moment`, counts as handed in; None or
        the line that says how the LMS's late flag changed it). All times naive UTC."""
        return moment, None

    def is_late(self, name: LmsFileName, moment: datetime.datetime,
                due: datetime.datetime | None) -> bool:
        """Whether the student's submission, handed in at `moment`, is late (the manifest's
        late column): after the due date, unless the LMS flags it."""
        return bool(due and moment > due)

    @property
    def upload_how(self) -> str:
        """Where the feedback zip goes back, for the instructor."""
        return f"{self.title}: {self.upload_page}, {self.upload_action}"

    def feedback_name(self, name: LmsFileName, notebook: str) -> str:
        """The name the LMS takes back the feedback page of `notebook` under, for the file
        `name` it was collected from: the front of the file's name, which tells the LMS the
        student, then the notebook's name with .html."""
        front = name.entry[:len(name.entry) - len(name.file_name)]
        return front + notebook.removesuffix(".ipynb") + ".html"
