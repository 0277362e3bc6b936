"""What grading one student produced: one typed record from the worker to the writer.

A worker returns a `StudentResult` (it crosses to the writer's process as a
pickle, also from a Dask worker); the writer (record.py) puts it in the
gradebook and turns it into JSON only where it writes the report
(`StudentResult.to_json`, read back by `StudentResult.from_json`).

A student's `status` says what the grader could do:

- GRADED: the notebooks were run and checked (each notebook then has its own
  status: graded, missing or unreadable);
- REFUSED: the submission was not run at all (its folder is a link, its id
  cannot be stored, ...); every check scores 0 with the reason;
- FAILED: the grader itself failed on it (`error` says how); nothing is recorded
  in the gradebook and the run ends with exit status 1;
- NO_SANDBOX: the sandbox could not be started: the machine's set-up, not the
  student's (exit status 2).
"""

from dataclasses import asdict, dataclass, field

GRADED = "graded"
REFUSED = "refused"
FAILED = "grader failed"
NO_SANDBOX = "no sandbox"


@dataclass
class TestResult:
    __test__ = False  # a result, not a test for pytest to collect

    grade_id: str
    points: float
    max_points: float
    status: str  # passed | failed | timeout | died | not run
    message: str = ""


@dataclass
class NotebookResult:
    notebook: str
    status: str  # graded | missing | unreadable
    message: str = ""
    notes: list = field(default_factory=list)
    tests: list = field(default_factory=list)  # TestResult, in the notebook's order
    seconds: float = 0.0
    autograded: dict | None = None  # the notebook to write to autograded/, as JSON

    def to_json(self):
        """The report's part: everything but the autograded notebook."""
        return {"notebook": self.notebook, "status": self.status, "message": self.message,
                "notes": list(self.notes), "tests": [asdict(t) for t in self.tests],
                "seconds": self.seconds}


@dataclass
class StudentResult:
    student: str
    assignment: str
    status: str = GRADED  # GRADED | REFUSED | FAILED | NO_SANDBOX
    notes: list = field(default_factory=list)
    notebooks: list = field(default_factory=list)  # NotebookResult, sorted by name
    seconds: float = 0.0
    error: str = ""  # how the grader failed (FAILED, NO_SANDBOX)

    @property
    def points(self):
        return sum(t.points for nb in self.notebooks for t in nb.tests)

    @property
    def max_points(self):
        return sum(t.max_points for nb in self.notebooks for t in nb.tests)

    def scores(self, notebook):
        """{grade_id: points} of one notebook; empty when it has no result."""
        return {t.grade_id: t.points for nb in self.notebooks if nb.notebook == notebook
                for t in nb.tests}

    def to_json(self):
        """The student's part of the grade report (reports/<assignment>/<student>.json)."""
        return {"student": self.student, "assignment": self.assignment, "status": self.status,
                "notes": list(self.notes), "notebooks": [nb.to_json() for nb in self.notebooks]}

    @classmethod
    def from_json(cls, data):
        notebooks = [NotebookResult(nb["notebook"], nb["status"], nb.get("message", ""),
                                    list(nb.get("notes", [])),
                                    [TestResult(**t) for t in nb.get("tests", [])],
                                    nb.get("seconds", 0.0))
                     for nb in data.get("notebooks", [])]
        return cls(data["student"], data.get("assignment", ""), data.get("status", GRADED),
                   list(data.get("notes", [])), notebooks)


def failed(student, assignment, error, status=FAILED):
    """The result of a student the grader failed on (or could not sandbox)."""
    return StudentResult(student, assignment, status, error=error)
