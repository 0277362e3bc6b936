"""What `python -m grader queue` prints: every hand-in the service knows, as a table or JSON."""

import datetime

from .records import QueuedJob

QUEUE_FIELDS = ("student", "assignment", "state", "attempts", "arrived", "graded", "score")


def iso_utc(moment: datetime.datetime | None) -> str | None:
    """A UTC moment in ISO 8601 (2026-12-01T16:59:00Z); None stays None."""
    if moment is None:
        return None
    return moment.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")


def queue_record(job: QueuedJob) -> dict[str, str | int | float | None]:
    """One hand-in as `queue --json` prints it: exactly the QUEUE_FIELDS."""
    return {"student": job.student, "assignment": job.assignment, "state": str(job.state),
            "attempts": job.attempts, "arrived": iso_utc(job.arrived),
            "graded": iso_utc(job.graded), "score": job.score}


def queue_table(jobs: list[QueuedJob]) -> list[str]:
    """The lines of the queue's table, a header first; an empty queue says so."""
    if not jobs:
        return ["no hand-ins in the queue"]
    rows = [list(QUEUE_FIELDS)]
    for job in jobs:
        record = queue_record(job)
        score = record["score"]
        record["score"] = "" if score is None else f"{score:g}/{job.max_score or 0:g}"
        rows.append(["" if record[f] is None else str(record[f]) for f in QUEUE_FIELDS])
    widths = [max(len(row[i]) for row in rows) for i in range(len(QUEUE_FIELDS))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
            for row in rows]
