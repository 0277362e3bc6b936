"""Moodle: its Download all submissions zip, matched by full name, without a late flag.

Moodle (*Download all submissions*) names every file

    {full name}_{participant id}_assignsubmission_file_{file name}
    Jane Doe_2041633_assignsubmission_file_parameters.ipynb

or, with *Download submissions in folders*, puts them in one folder per student,
`Jane Doe_2041633_assignsubmission_file_/parameters.ipynb`. The participant id
is the assignment's own number for the student, not the user id, and it is
unknown to a roster imported from elsewhere, so a Moodle file is matched by the
student's full name (first and last name as on the roster, in any Unicode form
and case). Two participants of one full name are never taken for one student:
the roster's lms_user_id, where the instructor wrote the participant id there,
tells which is which (intake's attempts.py). With blind marking the full name
is "Participant 2041633" and no student can be matched. Moodle has no late flag
in its names; the entry's time tells.

Feedback goes back through the assignment's "Upload multiple feedback files in
a zip": the page keeps the front of the download's name,
``Jane Doe_4242_assignsubmission_file_`` (full name, participant id, the
submission plugin) + ``parameters.html``, in the same folder where the download
had one folder per student. The grader reads and writes no Moodle gradebook CSV.
"""

import re

from .base import Platform, RosterPerson
from .names import LmsFileName, comparable_name

BLIND_MARKING = re.compile(r"^Participant [0-9]+$")


class Moodle(Platform):
    """Moodle: files matched by full name, no late flag, no gradebook CSV."""

    name = "moodle"
    title = "Moodle"
    pattern = re.compile(r"^(?P<name>[^/]+?)_(?P<lms_user_id>[0-9]+)_assignsubmission_file"
                         r"(?:_?/|_)(?P<file_name>[^/]+)$")
    layout = ("{full name}_{participant id}_assignsubmission_file_{file name} "
              "(or a folder {full name}_{participant id}_assignsubmission_file_/)")
    matched_by = "first_name and last_name"
    id_name = "participant id"
    upload_page = "the assignment's View all submissions"
    upload_action = "Upload multiple feedback files in a zip"

    def roster_key(self, person: RosterPerson) -> str:
        return comparable_name(f"{person.first_name} {person.last_name}")

    def file_key(self, name: LmsFileName) -> str:
        return comparable_name(name.student_name)

    def unmatchable(self, name: LmsFileName) -> str | None:
        if BLIND_MARKING.match(name.student_name):
            return (f"{self.title} hid the student's name (blind marking): reveal the "
                    f"identities and download again")
        return None

    def who(self, name: LmsFileName) -> str:
        return f"{self.title}'s {name.student_name!r}"

    def download_name(self, first: str, last: str, participant_id: int, file_name: str,
                      folders: bool = False) -> str:
        """The name Download all submissions gives a file, in one folder per student when
        `folders` (Download submissions in folders)."""
        return (f"{first} {last}_{participant_id}_assignsubmission_file_"
                f"{'/' if folders else ''}{file_name}")
