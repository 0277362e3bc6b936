"""What every LMS's file names share: the parts a name is read into, and renamed copies.

A platform (canvas.py, moodle.py) reads the name of each file of its "download
all submissions" zip into an `LmsFileName`; `released_notebook` finds the
released notebook a student's file is, renamed copies included.
"""

import datetime
import re
from dataclasses import dataclass

RENAMED_COPY = re.compile(r"^(?P<stem>.+?)(?:-[0-9]+| ?\([0-9]+\))(?P<suffix>\.ipynb)$")


@dataclass(frozen=True)
class LmsFileName:
    """What an LMS file name says: who, which upload, late or not, and the file's own name."""

    lms: str  # the platform's name, as --lms and the manifest write it
    entry: str  # the name as it is in the zip, which the LMS expects back on re-upload
    student_name: str  # as the LMS writes it in the name: a sortable name or a full name
    lms_user_id: str  # the LMS's number for the student (a user id or a participant id)
    attachment_id: str  # the LMS's number for the upload; "" where its names have none
    late: bool  # as the LMS flagged it (False where its names carry no flag)
    file_name: str  # the student's file name: "parameters-1.ipynb"


def released_notebook(file_name: str, notebooks: list[str]) -> str | None:
    """The notebook of `notebooks` (names with .ipynb) that `file_name` is: itself, or a
    renamed copy of it (`parameters-1.ipynb` by an LMS, `parameters (1).ipynb` by a
    browser); None when it is none of them."""
    if file_name in notebooks:
        return file_name
    copy = RENAMED_COPY.match(file_name)
    if copy and copy["stem"] + copy["suffix"] in notebooks:
        return copy["stem"] + copy["suffix"]
    return None


def comparable_name(name: str) -> str:
    """A full name compared as an LMS and a roster may write it: case, accents kept,
    runs of white space as one space."""
    return " ".join(name.split()).casefold()


def shown_time(moment: datetime.datetime | None) -> str:
    """A naive UTC time as the collecting lines show it."""
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC" if moment else "at an unknown time"
