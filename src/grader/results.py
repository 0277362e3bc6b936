"""What grading one student produced: one typed record from the worker to the writer.

A worker returns a `StudentResult` (it crosses to the writer's process as a
pickle, also from a Dask worker); the writer (recording/writer.py) puts it in the
gradebook and turns it into JSON only where it writes the report
(`StudentResult.to_json`, read back by `StudentResult.from_json`).

A student's `status` says what the grader could do:

- GRADED: the notebooks were run and checked (each notebook then has its own
  `NotebookStatus`: graded, missing or unreadable);
- REFUSED: the submission was not run at all (its folder is a link, its id
  cannot be stored, ...); every check scores 0 with the reason;
- GRADER_FAILED: the grader itself failed on it (`error` says how); nothing is
  recorded in the gradebook and the run ends with exit status 1;
- NO_SANDBOX: the sandbox could not be started: the machine's set-up, not the
  student's (exit status 2).

Each check has a `CheckStatus`. The statuses are string enums: the report's
JSON and CSV hold their values ("grader failed", "not run", ...).
"""

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class StudentStatus(StrEnum):
    GRADED = "graded"
    REFUSED = "refused"
    GRADER_FAILED = "grader failed"
    NO_SANDBOX = "no sandbox"


class NotebookStatus(StrEnum):
    GRADED = "graded"
    MISSING = "missing"
    UNREADABLE = "unreadable"


class CheckStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    DIED = "died"
    NOT_RUN = "not run"


@dataclass
class CheckResult:
    """What one check (an instructor's test cell) gave."""

    grade_id: str
    points: float
    max_points: float
    status: CheckStatus
    message: str = ""


@dataclass
class NotebookResult:
    """What grading one notebook gave: its status, the notes on it and each check's result."""

    notebook: str
    status: NotebookStatus
    message: str = ""
    notes: list[str] = field(default_factory=list)
    tests: list[CheckResult] = field(default_factory=list)  # in the notebook's order
    seconds: float = 0.0
    autograded: dict[str, Any] | None = None  # the notebook to write to autograded/, as JSON

    def to_json(self) -> dict[str, Any]:
        """The report's part: everything but the autograded notebook."""
        return {"notebook": self.notebook, "status": str(self.status), "message": self.message,
                "notes": list(self.notes),
                "tests": [dict(asdict(t), status=str(t.status)) for t in self.tests],
                "seconds": self.seconds}


@dataclass
class StudentResult:
    """What grading one student gave: the status, the notes and each notebook's result."""

    student: str
    assignment: str
    status: StudentStatus = StudentStatus.GRADED
    notes: list[str] = field(default_factory=list)
    notebooks: list[NotebookResult] = field(default_factory=list)  # sorted by name
    seconds: float = 0.0
    error: str = ""  # how the grader failed (GRADER_FAILED, NO_SANDBOX)

    @property
    def points(self) -> float:
        return sum(t.points for nb in self.notebooks for t in nb.tests)

    @property
    def max_points(self) -> float:
        return sum(t.max_points for nb in self.notebooks for t in nb.tests)

    def scores(self, notebook: str) -> dict[str, float]:
        """{grade_id: points} of one notebook; empty when it has no result."""
        return {t.grade_id: t.points for nb in self.notebooks if nb.notebook == notebook
                for t in nb.tests}

    def to_json(self) -> dict[str, Any]:
        """The student's part of the grade report (reports/<assignment>/<student>.json)."""
        return {"student": self.student, "assignment": self.assignment,
                "status": str(self.status),
                "notes": list(self.notes), "notebooks": [nb.to_json() for nb in self.notebooks]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "StudentResult":
        notebooks = [NotebookResult(nb["notebook"], NotebookStatus(nb["status"]),
                                    nb.get("message", ""), list(nb.get("notes", [])),
                                    [CheckResult(**dict(t, status=CheckStatus(t["status"])))
                                     for t in nb.get("tests", [])],
                                    nb.get("seconds", 0.0))
                     for nb in data.get("notebooks", [])]
        return cls(data["student"], data.get("assignment", ""),
                   StudentStatus(data.get("status", StudentStatus.GRADED)),
                   list(data.get("notes", [])), notebooks)


def grader_failed(student: str, assignment: str, error: str,
                  status: StudentStatus = StudentStatus.GRADER_FAILED) -> StudentResult:
    """The result of a student the grader failed on (or could not sandbox)."""
    return StudentResult(student, assignment, status, error=error)
