"""What every grade push shares when it writes: the report's table, and each row sent.

`table` lays out the rows (student, user id, grade in the LMS now, grade to send,
what is written or was done); `write_rows` sends each row that has something
to write and sets its `PushOutcome`, stopping at a refused token.
"""

from collections.abc import Callable

from ..lms import LmsRefused, LmsRequestFailed, LmsUnavailable
from ..reports import number
from .plan import PushOutcome, PushRow


def grade_text(value: float | None) -> str:
    return "-" if value is None else number(value)


def table(rows: list[PushRow], outcome: bool, title: str
          ) -> list[str]:
    """The rows as a table: student, user id, grade in the LMS (`title`) now, grade to send
    (and what the push did, with `outcome`)."""
    header = ["student", f"{title} user id", f"grade in {title} now", "grade to send",
              "done" if outcome else "to write"]
    body = []
    for row in rows:
        if row.problem:
            what = row.problem
        elif outcome:
            what = row.outcome_text()
        else:
            what = " and ".join(w for w, send in (("grade", row.send_grade),
                                                  ("comment", row.send_comment)) if send)
            what = what or "nothing (up to date)"
        body.append([row.student, row.lms_user_id or "-", grade_text(row.now),
                     number(row.grade), what])
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header) - 1)]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1]
            for r in [header] + body]


def write_rows(rows: list[PushRow], send: Callable[[PushRow], str], refused_by: str) -> str:
    """Each row that has something to write sent with `send` (which says what it sent), its
    outcome set: up to date, sent, failed (the LMS down, after its retries), or not sent
    once the LMS refused the push (401, which `refused_by` words: the rows after it are not
    tried). Returns that refusal, or ''."""
    refused = ""
    for row in rows:
        if row.problem:
            continue
        if not row.writes:
            row.outcome = PushOutcome.UP_TO_DATE
        elif refused:
            row.outcome, row.why = PushOutcome.NOT_SENT, refused_by
        else:
            try:
                row.sent = send(row)
                row.outcome = PushOutcome.SENT
            except LmsRefused as error:
                refused = str(error)
                row.outcome, row.why = PushOutcome.NOT_SENT, refused_by
            except (LmsUnavailable, LmsRequestFailed) as error:
                row.outcome, row.why = PushOutcome.FAILED, str(error)
    return refused
