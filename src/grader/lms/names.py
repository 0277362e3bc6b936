"""What every LMS's file names share: the parts a name is read into, and renamed copies.

A platform (canvas.py, moodle.py) reads the name of each file of its "download
all submissions" zip into an `LmsFileName`; `released_notebook` finds the
released notebook a student's file is, renamed copies included.
"""

import datetime
import re
import unicodedata
from dataclasses import dataclass

RENAMED_COPY = re.compile(r"^(?P<stem>.+?)(?:-[0-9]+| ?\([0-9]+\))(?P<suffix>\.ipynb)$")
COLAB_COPY = re.compile(r"^(?:Copy[ _]of[ _])+(?P<name>.+)$")  # "Copy of x", "Copy_of_x"


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
    browser, `Copy of parameters.ipynb` or `Copy_of_parameters.ipynb` by Colab, which a
    browser or an LMS may rename again); None when it is none of them. Names are
    compared in Unicode's composed form (NFC), as a Mac may write them decomposed."""
    by_form = {unicodedata.normalize("NFC", n): n for n in notebooks}
    for name in dict.fromkeys(file_names_of_copy(unicodedata.normalize("NFC", file_name))):
        if name in by_form:
            return by_form[name]
    return None


def file_names_of_copy(file_name: str) -> list[str]:
    """The names `file_name` may be a copy of, itself first: without an LMS's or a
    browser's number, without Colab's "Copy of", without both."""
    names = [file_name]
    colab = COLAB_COPY.match(file_name)
    if colab:
        names.append(colab["name"])
    for name in list(names):
        copy = RENAMED_COPY.match(name)
        if copy:
            names.append(copy["stem"] + copy["suffix"])
    return names


def comparable_name(name: str) -> str:
    """A full name compared as an LMS and a roster may write it: accents kept, in Unicode's
    composed form (NFC, as a roster writes them; a Mac writes file names decomposed),
    case folded, runs of white space as one space."""
    folded = unicodedata.normalize("NFC", " ".join(name.split())).casefold()
    return unicodedata.normalize("NFC", folded)


def shown_time(moment: datetime.datetime | None) -> str:
    """A naive UTC time as the collecting lines show it."""
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC" if moment else "at an unknown time"
