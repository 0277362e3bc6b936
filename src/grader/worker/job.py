"""One student's work as plain data: the `Job` a worker grades, read on the instructor's machine."""

import os
from dataclasses import dataclass, field

from ..plan import MAX_COPIED_FILE_BYTES, Unreadable, read_submission_bytes, student_extra_files
from .assignment import Assignment


@dataclass
class Job:
    """Everything a worker needs to grade one student, as data; picklable.

    It holds no path of the course: the assignment (its instructor notebooks as
    JSON text), the submitted notebooks as bytes and the student's other files
    as bytes, read on the instructor's machine by `read_job`. A worker writes
    what it needs into a private temporary folder of its own, so workers need
    neither the course folder nor a shared file system.
    """

    student: str
    assignment: Assignment
    submission: dict[str, bytes] = field(default_factory=dict)  # by notebook name
    unreadable: dict[str, str] = field(default_factory=dict)  # notebook name -> why not read
    files: dict[str, bytes] = field(default_factory=dict)  # by relative path, for the sandbox
    folder_notes: list[str] = field(default_factory=list)  # what reading the folder noticed


def read_job(assignment: Assignment, student: str, submitted_dir: str) -> Job:
    """The Job for submitted_dir (submitted/<student>/<assignment>), read here.

    The submitted notebooks go through the checks on the file itself (no link,
    a regular file, at most MAX_NOTEBOOK_BYTES); one that fails them is kept
    as its reason, reported as today. The other files are those
    student_extra_files picks (no links, limited in number and size).
    """
    expected = {name + ".ipynb" for name in assignment.instructor_texts}
    files, folder_notes = student_extra_files(submitted_dir, expected)
    submission: dict[str, bytes] = {}
    unreadable: dict[str, str] = {}
    for name in assignment.instructor_texts:
        try:
            submission[name] = read_submission_bytes(os.path.join(submitted_dir, name + ".ipynb"))
        except FileNotFoundError:
            pass
        except Unreadable as problem:
            unreadable[name] = str(problem)
    contents: dict[str, bytes] = {}
    for relative in files:
        fd = os.open(os.path.join(submitted_dir, relative),
                     os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            contents[relative] = handle.read(MAX_COPIED_FILE_BYTES + 1)[:MAX_COPIED_FILE_BYTES]
    return Job(student, assignment, submission, unreadable, contents, folder_notes)
