"""What the push sends each student: the grade `make grades` exports, and their feedback summary.

The grade is `AssignmentGrades.score_of`, the score the gradebook export
carries (the raw score less the late penalty, which counts the student's
extension; 0 when nothing was handed in), so the LMS and the export never
disagree. The comment is the feedback's summary as text: the score, what the
due date and any extension came to, and the points of each notebook and check with
its message and the grader's comment, so an edited comment or a changed message is
a comment the LMS lacks, sent once (what the digest of reports.digest holds).
A grade equal to the LMS's is not sent again, nor a comment the submission
already has, so a second push with nothing changed writes nothing. Nothing is
sent to an LMS user id that two students hold (a roster or gradebook gone
wrong): one would overwrite the other's grade; both are listed, and the push
fails until the roster is corrected. What the push did with each row is a
`PushOutcome`, counted in `PushCounts`; both become words only in the push's
report.
"""

import enum
from collections import Counter
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
    shared: int  # holding a user id another student holds too: nothing sent to it

    @classmethod
    def of(cls, rows: Iterable[PushRow]) -> "PushCounts":
        rows = list(rows)
        outcomes = [row.outcome for row in rows if not row.problem]
        shared = len(shared_rows(rows))
        return cls(sent=outcomes.count(PushOutcome.SENT),
                   up_to_date=outcomes.count(PushOutcome.UP_TO_DATE),
                   missing=len(rows) - len(outcomes) - shared,
                   failed=outcomes.count(PushOutcome.FAILED) + outcomes.count(
                       PushOutcome.NOT_SENT),
                   shared=shared)


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
                                       grades.class_due))
        for check in grades.checks:
            cell = (check.notebook, check.grade_id)
            points = submission.points.get(cell) or 0.0
            lines.append(f"{check.notebook} {check.grade_id}: {number(points)}/"
                         f"{number(check.max_points)}")
            message = submission.messages.get(cell, "").strip()
            if message:
                lines.append(f"  check: {message}")
        lines += [f"{notebook} {name}, comment: {text.strip()}"
                  for (notebook, name), text in sorted(submission.comments.items())
                  if text.strip()]
    return "\n".join(lines)


UserIdOf = Callable[[Person], str]  # a student's user id in the LMS pushed to


def lms_user_id(person: Person) -> str:
    return person.lms_user_id


def shared_user_ids(people: dict[str, Person], user_id_of: UserIdOf = lms_user_id
                    ) -> dict[str, list[str]]:
    """{user id: the students holding it} of each user id more than one student holds."""
    holders: dict[str, list[str]] = {}
    for student in sorted(people):
        if user_id_of(people[student]):
            holders.setdefault(user_id_of(people[student]), []).append(student)
    return {user_id: students for user_id, students in holders.items() if len(students) > 1}


def only_students(people: dict[str, Person], students: Collection[str] | None,
                  user_id_of: UserIdOf = lms_user_id) -> dict[str, Person]:
    """`people`, or those of them named in `students` (a push of some students' final
    grades) when it is given, with every student who holds the same user id as one of them
    (so that the push sees that it cannot send to it)."""
    if students is None:
        return people
    wanted = {user_id_of(people[s]) for s in students if s in people} - {""}
    return {student: person for student, person in people.items()
            if student in students or user_id_of(person) in wanted}


def shared_rows(rows: list["PushRow"]) -> list["PushRow"]:
    """The rows whose user id another row carries too: nothing is sent to them."""
    counts = Counter(row.lms_user_id for row in rows if row.lms_user_id)
    return [row for row in rows if counts[row.lms_user_id] > 1]


def shared_refusals(rows: list["PushRow"], lms_title: str) -> list[str]:
    """A line per user id that rows of more than one student carry."""
    shared = shared_rows(rows)
    return [f"refused: {' and '.join(r.student for r in shared if r.lms_user_id == user_id)} "
            f"share {lms_title} user id {user_id}; nothing was sent to it"
            for user_id in dict.fromkeys(r.lms_user_id for r in shared)]


def plan_rows(people: dict[str, Person], grades: AssignmentGrades,
              in_lms: dict[str, LmsSubmission], lms_title: str,
              user_id_of: UserIdOf = lms_user_id, no_user_id: str = "") -> list[PushRow]:
    """A row for every student of the roster and gradebook, sorted by name as the export
    lists them, with what the LMS (`lms_title`; its submissions `in_lms`, by the user id
    `user_id_of` a person, by default their lms_user_id) lacks marked to send; `no_user_id`
    says how a student without one gets it; a user id two students hold gets nothing."""
    shared = shared_user_ids(people, user_id_of)
    rows = []
    for student in sorted(people, key=lambda s: (people[s].name.lower(), s)):
        user_id = user_id_of(people[student])
        row = PushRow(student, user_id, None, grades.score_of(student),
                      feedback_comment(grades, student))
        held = in_lms.get(user_id)
        if not user_id:
            row.problem = no_user_id or (f"no {lms_title} user id in the roster (make roster "
                                         f"from {lms_title}'s gradebook export)")
        elif user_id in shared:
            others = ", ".join(s for s in shared[user_id] if s != student)
            row.problem = (f"shares {lms_title} user id {user_id} with {others}: one LMS user, "
                           f"two students; correct the roster, then push again")
        elif held is None:
            row.problem = f"not in the {lms_title} course"
        else:
            row.now = held.score
            row.send_grade = held.score is None or abs(held.score - row.grade) > 1e-9
            row.send_comment = row.comment not in held.comments
        rows.append(row)
    return rows
