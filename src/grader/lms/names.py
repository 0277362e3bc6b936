"""The names an LMS gives the files of its "download all submissions" zip.

Canvas (Assignments, *Download Submissions*) names every file

    {name}_{late_}{user id}_{attachment id}_{file name}
    doejane_12345_67890_parameters.ipynb
    doejane_late_12345_67891_parameters-1.ipynb

where `name` is the student's sortable name, lower case, letters only;
`late_` is there when Canvas counts the submission late (against the student's
own due date, overrides included); the user id is the `ID` column of Canvas's
gradebook export; the attachment id grows with every upload; and the file name
is the name the file had in Canvas, which adds `-1`, `-2` when a student
uploads a file of a name already used.

Moodle (*Download all submissions*) names every file

    {full name}_{participant id}_assignsubmission_file_{file name}
    Jane Doe_2041633_assignsubmission_file_parameters.ipynb

or, with *Download submissions in folders*, puts them in one folder per student,
`Jane Doe_2041633_assignsubmission_file_/parameters.ipynb`. The participant id
is the assignment's own number for the student, not the user id, and it is
unknown to any roster, so a Moodle file is matched by the student's full name
(first and last name as on the roster); with blind marking the full name is
"Participant 2041633" and no student can be matched. Moodle has no late flag
in its names; the entry's time tells.

Both are `FileNameCollectorPlugin` patterns for nbgrader's `zip_collect`
(`LmsFileNameCollector`); `read_lms_name` reads one name.
"""

import os
import re
from dataclasses import dataclass

from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Dict, Unicode, observe

# named groups, as nbgrader's FileNameCollectorPlugin.named_regexp takes them
PATTERNS = {
    "canvas": re.compile(r"^(?P<name>[^_/]*)_(?P<late>late_)?(?P<lms_user_id>[0-9]+)_"
                         r"(?P<attachment_id>[0-9]+)_(?P<file_name>[^/]+)$"),
    "moodle": re.compile(r"^(?P<name>[^/]+?)_(?P<lms_user_id>[0-9]+)_assignsubmission_file"
                         r"(?:_?/|_)(?P<file_name>[^/]+)$"),
}
LAYOUTS = {  # how each LMS writes a name, for messages
    "canvas": "{name}_{late_}{user id}_{attachment id}_{file name}",
    "moodle": "{full name}_{participant id}_assignsubmission_file_{file name} "
              "(or a folder {full name}_{participant id}_assignsubmission_file_/)",
}
RENAMED_COPY = re.compile(r"^(?P<stem>.+?)(?:-[0-9]+| ?\([0-9]+\))(?P<suffix>\.ipynb)$")
BLIND_MARKING = re.compile(r"^Participant [0-9]+$")


@dataclass(frozen=True)
class LmsFileName:
    """What an LMS file name says: who, which upload, late or not, and the file's own name."""

    lms: str
    entry: str  # the name as it is in the zip, which the LMS expects back on re-upload
    student_name: str  # Canvas's "doejane", Moodle's "Jane Doe"
    lms_user_id: str  # Canvas's user id, Moodle's participant id
    attachment_id: str  # Canvas's attachment id; "" for Moodle
    late: bool  # as the LMS flagged it (Moodle flags nothing)
    file_name: str  # the student's file name: "parameters-1.ipynb"


def read_lms_name(lms: str, entry: str) -> LmsFileName | None:
    """The parts of the zip entry name `entry` as `lms` writes them, or None if it does not
    follow that LMS's names."""
    match = PATTERNS[lms].match(entry)
    if not match:
        return None
    parts = match.groupdict()
    return LmsFileName(lms, entry, parts["name"].strip(), parts["lms_user_id"],
                       parts.get("attachment_id") or "", bool(parts.get("late")),
                       parts["file_name"])


def released_notebook(file_name: str, notebooks: list) -> str | None:
    """The notebook of `notebooks` (names with .ipynb) that `file_name` is: itself, or a
    renamed copy of it (`parameters-1.ipynb` by Canvas, `parameters (1).ipynb` by a
    browser); None when it is none of them."""
    if file_name in notebooks:
        return file_name
    copy = RENAMED_COPY.match(file_name)
    if copy and copy["stem"] + copy["suffix"] in notebooks:
        return copy["stem"] + copy["suffix"]
    return None


def comparable_name(name: str) -> str:
    """A full name compared as Moodle and a roster may write it: case, accents kept,
    runs of white space as one space."""
    return " ".join(name.split()).casefold()


def canvas_name_key(name: str) -> str:
    """A name as Canvas writes it in a download: lower case, letters and digits only."""
    return "".join(c for c in name.casefold() if c.isalnum())


class LmsFileNameCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector with the LMS's own names, matched on the path inside
    the zip (nbgrader's matches the whole path). `student_ids` maps each entry name to the
    course's student id, `notebooks` to the released notebook it is and `timestamps` to the
    submission time; an entry missing from them is skipped."""

    lms = Unicode("canvas", help="which LMS wrote the names: canvas or moodle").tag(config=True)
    named_regexp = Unicode(PATTERNS["canvas"].pattern, help="the LMS's pattern (from `lms`)")
    extracted = Unicode("", help="the folder the zip's entries were written to")
    student_ids = Dict(help="{entry name: course student id}")
    notebooks = Dict(help="{entry name: released notebook name}")
    timestamps = Dict(help="{entry name: submission time, as parse_utc reads it}")

    @observe("lms")
    def use_the_lms_pattern(self, change: dict) -> None:
        self.named_regexp = PATTERNS[change["new"]].pattern

    def collect(self, submitted_file: str) -> dict | None:
        entry = os.path.relpath(submitted_file, self.extracted).replace(os.sep, "/")
        if not entry.endswith(".ipynb") or not self._match(entry) or entry not in self.student_ids:
            return None
        return {"student_id": self.student_ids[entry], "file_id": self.notebooks[entry],
                "timestamp": self.timestamps[entry], "first_name": None, "last_name": None,
                "email": None}
