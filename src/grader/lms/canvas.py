"""Canvas: its Download Submissions zip, its late flag, its gradebook CSV.

Canvas (Assignments, *Download Submissions*) names every file

    {name}_{late_}{user id}_{attachment id}_{file name}
    doejane_12345_67890_parameters.ipynb
    doejane_late_12345_67891_parameters-1.ipynb

where `name` is the student's sortable name, lower case, letters only;
`late_` is there when Canvas counts the submission late (against the student's
own due date, overrides included); the user id is the `ID` column of Canvas's
gradebook export; the attachment id grows with every upload; and the file name
is the name the file had in Canvas, which adds `-1`, `-2` when a student
uploads a file of a name already used. A file is matched to the roster by its
user id (the roster's `lms_user_id`).

Feedback goes back through the assignment's "Re-upload submissions", which
attaches each file to the student's submission as a comment: the page keeps the
front of the download's name, ``doejane_late_12345_67891_`` (name, late flag,
user id, attachment id) + ``parameters.html``.

Canvas's gradebook export (Grades, Export, "Export Entire Gradebook") has the
columns ``Student`` ("Last, First"), ``ID``, ``SIS User ID``, ``SIS Login ID``
(the course's student id) and ``Section``, a "Points Possible" row first and the
test student "Student, Test"; its import takes the same columns back.
"""

import datetime
import re
from typing import ClassVar

from .base import GradebookCsv, Platform, RosterPerson
from .names import LmsFileName, comparable_name, shown_time

ONE_SECOND = datetime.timedelta(seconds=1)


def sortable_name(first: str, last: str) -> str:
    """The student's name as Canvas's download names write it (last then first name,
    letters and digits only), compared: composed accents (NFC), case folded."""
    return "".join(c for c in comparable_name(f"{last}{first}") if c.isalnum())


class Canvas(Platform):
    """Canvas: files matched by user id, a late flag that decides, a gradebook CSV."""

    name = "canvas"
    title = "Canvas"
    pattern = re.compile(r"^(?P<name>[^_/]*)_(?P<late>late_)?(?P<lms_user_id>[0-9]+)_"
                         r"(?P<attachment_id>[0-9]+)_(?P<file_name>[^/]+)$")
    layout = "{name}_{late_}{user id}_{attachment id}_{file name}"
    matched_by = "lms_user_id (Canvas's ID column)"
    upload_page = "the assignment's page"
    upload_action = "Re-upload submissions"
    gradebook: ClassVar[GradebookCsv] = GradebookCsv(
        student="Student", user_id="ID", sis_user_id="SIS User ID",
        login_id="SIS Login ID", section="Section", points_possible="Points Possible",
        test_student="Student, Test")

    def roster_key(self, person: RosterPerson) -> str:
        return person.lms_user_id

    def file_key(self, name: LmsFileName) -> str:
        return name.lms_user_id

    def on_roster(self, person: RosterPerson) -> str:
        return (f"{person.first_name} {person.last_name} ({person.id}, lms_user_id "
                f"{person.lms_user_id or 'none'})")

    def name_key(self, person: RosterPerson) -> str:
        """The sortable name as Download Submissions writes it (`download_name`)."""
        return sortable_name(person.first_name, person.last_name)

    def who(self, name: LmsFileName) -> str:
        return f"{self.title} user {name.lms_user_id} ({name.student_name})"

    def handed_in_at(self, name: LmsFileName, moment: datetime.datetime,
                     due: datetime.datetime | None
                     ) -> tuple[datetime.datetime, str | None]:
        """Where a due date is set and Canvas's late flag disagrees with the zip's time, the
        flag decides: a flagged file not after the due date counts as one second after it,
        an unflagged one after the due date as handed in at the due date."""
        if due is None:
            return moment, None
        if name.late and moment <= due:
            return due + ONE_SECOND, (
                f"{name.entry!r}: {self.title} flags it late but the zip dates it "
                f"{shown_time(moment)}, not after the due date {shown_time(due)}: taken as "
                f"handed in one second after the due date")
        if not name.late and moment > due:
            return due, (
                f"{name.entry!r}: {self.title} counts it on time (an extension in "
                f"{self.title}?) though the zip dates it {shown_time(moment)}, after the due "
                f"date: taken as handed in at the due date")
        return moment, None

    def is_late(self, name: LmsFileName, moment: datetime.datetime,
                due: datetime.datetime | None) -> bool:
        """Late as Canvas flagged it, against the student's own due date."""
        return name.late

    def download_name(self, first: str, last: str, user_id: int, attachment_id: int,
                      file_name: str, late: bool = False) -> str:
        """The name Download Submissions gives a file: the sortable name ("Diaz, Dave") in
        lower case, letters and digits only, then the late flag and the ids."""
        sortable = "".join(c for c in f"{last}{first}".lower() if c.isalnum())
        return f"{sortable}_{'late_' if late else ''}{user_id}_{attachment_id}_{file_name}"
