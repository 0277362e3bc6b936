"""What `python -m grader queue` prints: every hand-in the service knows, as a table or JSON.

The hand-in each student's grade is of shows the gradebook's score (recorded.py: after a
regrade, a batch run, a manual grade or a late penalty, the same as the gradebook), marked
`recorded`, with the late penalty taken off; every other shows what the grader gave it.
"""

from ..after.recorded import RecordedGrade
from ..queue.records import QueuedJob
from ..queue.status import iso_utc

QUEUE_FIELDS = ("student", "assignment", "kind", "state", "attempts", "arrived", "graded",
                "score", "max_score", "late_penalty", "recorded", "release", "release_current")


def queue_record(job: QueuedJob, grade: RecordedGrade | None = None, release: str = "",
                 current: str = "") -> dict[str, str | int | float | bool | None]:
    """One hand-in as `queue --json` prints it: exactly the QUEUE_FIELDS; with `grade`, the
    gradebook's record of it (`job` shown as recorded.as_recorded gives it); `release` the
    digest of the release it was graded against ("": not known), `current` the one now."""
    return {"student": job.student, "assignment": job.assignment,
            "kind": "check" if job.is_check else "submission", "state": str(job.state),
            "attempts": job.attempts, "arrived": iso_utc(job.arrived),
            "graded": iso_utc(job.graded), "score": job.score, "max_score": job.max_score,
            "late_penalty": grade.penalty if grade is not None else None,
            "recorded": grade is not None, "release": release[:12] or None,
            "release_current": (release == current) if release and current else None}


TABLE_FIELDS = ("student", "assignment", "kind", "state", "attempts", "arrived", "graded",
                "score")


def queue_table(jobs: list[QueuedJob], grades: dict[int, RecordedGrade] | None = None
                ) -> list[str]:
    """The lines of the queue's table, a header first; an empty queue says so. A score the
    gradebook holds is marked "(recorded)", with its late penalty."""
    if not jobs:
        return ["no hand-ins in the queue"]
    rows = [list(TABLE_FIELDS)]
    for job in jobs:
        grade = (grades or {}).get(job.id)
        record = queue_record(job, grade)
        score = record["score"]
        record["score"] = "" if score is None else f"{score:g}/{job.max_score or 0:g}"
        if grade is not None:
            record["score"] += (f" (recorded, late penalty {grade.penalty:g})"
                                if grade.penalty > 0 else " (recorded)")
        rows.append(["" if record[f] is None else str(record[f]) for f in TABLE_FIELDS])
    widths = [max(len(row[i]) for row in rows) for i in range(len(TABLE_FIELDS))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
            for row in rows]
