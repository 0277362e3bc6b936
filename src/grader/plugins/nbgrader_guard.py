"""Keeps nbgrader's own autograde from grading this course outside the sandbox.

`nbgrader autograde` and formgrader's *Autograde* button run each student's
notebook in an ordinary kernel with the grader's rights, then overwrite the
scores that `make autograde` recorded from the sandbox. The course's
nbgrader_config.py sets ``c.Autograde.exporter_class`` to the class below:
nbgrader builds the exporter before it touches any file or gradebook row, so
the refusal leaves the autograded files and the recorded grades as they were.
"""

from typing import Any

from nbconvert.exporters import NotebookExporter
from nbgrader.converters.base import NbGraderException

REFUSAL = ("nbgrader's own autograde is switched off for this course:\n"
           "it would run the students' code outside the grading sandbox\n"
           "and overwrite the sandboxed grades.\n"
           "Grade in a terminal in the course folder with `make autograde`\n"
           "(one assignment: make autograde ASSIGNMENT=parameters;\n"
           " some students: make autograde STUDENTS=alice,bob).")


class SandboxedGradingOnly(NotebookExporter):
    """An exporter that refuses to be built, with the message that says what to run."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log.error(REFUSAL)
        raise NbGraderException(REFUSAL)
