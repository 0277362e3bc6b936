"""What the push sends each student: the grade `make grades` exports, and their feedback summary.

The grade is `AssignmentGrades.score_of`, the score the gradebook export
carries (the raw score less the late penalty, which counts the student's
extension; 0 when nothing was handed in), so the LMS and the export never
disagree. The comment is the feedback's summary as text: the score, what the
due date and any extension came to, and the points of each notebook and check.
A grade equal to the LMS's is not sent again, nor a comment the submission
already has, so a second push with nothing changed writes nothing. What the push
did with each row is a `PushOutcome`, counted in `PushCounts`; both become words
only in the push's report.
"""

import enum
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from ..lms import LmsSubmission
from ..reports import AssignmentGrades, Person, deadline_text, number


class PushOutcome(enum.Enum):
    """What the push did with one student's row (a row with a `problem` has none)."""

    UP_TO_DATE = "up to date"  # nothing to write: the LMS holds the grade and the comment
    SENT = "sent"  # written; `PushRow.sent` says what
    FAILED = "failed"  # the LMS still failed after its retries; `PushRow.why` says how
    NOT_SENT = "not sent"  # not tried: the LMS refused the push before it; `PushRow.why`


@dataclass
class PushRow:
    """One student's line of the push: who, the grade in the LMS now, what is sent."""

    student: str
    lms_user_id: str
    now: float | None  # the grade the LMS holds now, None: none (or not in the course)
    grade: float  # the grade to send
    comment: str  # the feedback summary
    send_grade: bool = False
    send_comment: bool = False
    problem: str = ""  # why nothing can be sent: no LMS user id, not in the LMS's course
    outcome: PushOutcome | None = None  # what the push did (None: not pushed, or a problem)
    sent: str = ""  # what was written ("grade and comment"), when SENT
    why: str = ""  # why not, when FAILED or NOT_SENT

    @property
    def writes(self) -> bool:
        return not self.problem and (self.send_grade or self.send_comment)

    def outcome_text(self) -> str:
        """What the push did, as the report's last column says it."""
        if self.outcome is PushOutcome.SENT:
            return f"sent {self.sent}"
        if self.outcome is PushOutcome.FAILED:
            return f"failed: {self.why}"
        if self.outcome is PushOutcome.NOT_SENT:
            return f"not sent ({self.why})"
        return "nothing (up to date)" if self.outcome is PushOutcome.UP_TO_DATE else ""


@dataclass(frozen=True)
class PushCounts:
    """The rows of a push, counted by what became of them."""

    sent: int  # written
    up_to_date: int  # nothing to write
    missing: int  # a problem: not in the LMS's course, or no user id
    failed: int  # failed, or not sent once the LMS refused the push

    @classmethod
    def of(cls, rows: Iterable[PushRow]) -> "PushCounts":
        rows = list(rows)
        outcomes = [row.outcome for row in rows if not row.problem]
        return cls(sent=outcomes.count(PushOutcome.SENT),
                   up_to_date=outcomes.count(PushOutcome.UP_TO_DATE),
                   missing=len(rows) - len(outcomes),
                   failed=outcomes.count(PushOutcome.FAILED) + outcomes.count(
                       PushOutcome.NOT_SENT))


def feedback_comment(grades: AssignmentGrades, student: str) -> str:
    """The student's feedback summary, as the comment on their submission."""
    submission = grades.submissions.get(student)
    lines = [f"{grades.name}: {number(grades.score_of(student))}/{number(grades.max_score)} "
             f"points"]
    if submission is None:
        lines.append("nothing handed in")
    else:
        if submission.seconds_late > 0 or student in grades.extensions:
            lines.append(deadline_text(submission, grades.extensions.get(student),
                                       grades.duedate))
        for check in grades.checks:
            points = submission.points.get((check.notebook, check.grade_id)) or 0.0
            lines.append(f"{check.notebook} {check.grade_id}: {number(points)}/"
                         f"{number(check.max_points)}")
    return "\n".join(lines)


def only_students(people: dict[str, Person], students: Collection[str] | None
                  ) -> dict[str, Person]:
    """`people`, or those of them named in `students` (a push of some students' final
    grades) when it is given."""
    if students is None:
        return people
    return {student: person for student, person in people.items() if student in students}


def plan_rows(people: dict[str, Person], grades: AssignmentGrades,
              in_lms: dict[str, LmsSubmission], lms_title: str,
              user_id_of: Callable[[Person], str] = lambda p: p.lms_user_id,
              no_user_id: str = "") -> list[PushRow]:
    """A row for every student of the roster and gradebook, sorted by name as the export
    lists them, with what the LMS (`lms_title`; its submissions `in_lms`, by the user id
    `user_id_of` a person, by default their lms_user_id) lacks marked to send; `no_user_id`
    says how a student without one gets it."""
    rows = []
    for student in sorted(people, key=lambda s: (people[s].name.lower(), s)):
        user_id = user_id_of(people[student])
        row = PushRow(student, user_id, None, grades.score_of(student),
                      feedback_comment(grades, student))
        held = in_lms.get(user_id)
        if not user_id:
            row.problem = no_user_id or (f"no {lms_title} user id in the roster (make roster "
                                         f"from {lms_title}'s gradebook export)")
        elif held is None:
            row.problem = f"not in the {lms_title} course"
        else:
            row.now = held.score
            row.send_grade = held.score is None or abs(held.score - row.grade) > 1e-9
            row.send_comment = row.comment not in held.comments
        rows.append(row)
    return rows
