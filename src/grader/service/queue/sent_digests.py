"""The digest of what went out to each student and target (the store's ``sent_digests``).

The store remembers the score the feedback released and the grade pushed carried
(``sent_grades``); beside it, the digest of the score, the grader's comments and the
checks' messages (reports.digest), written in the same transaction by `Store.record_sent`.
A grade remembered by an older service has no digest: it counts as its score.
"""

from .queue_database import QueueDatabase, Statements


def remember_digest(db: Statements, student: str, assignment: str, target: str,
                    digest: str) -> None:
    """Within a transaction of the store: `digest` as what last went out ("" forgets it)."""
    if not digest:
        db.change("DELETE FROM sent_digests WHERE student = :student AND assignment = "
                  ":assignment AND target = :target", student=student, assignment=assignment,
                  target=target)
        return
    db.change("INSERT INTO sent_digests (student, assignment, target, digest) "
              "VALUES (:student, :assignment, :target, :digest) "
              "ON CONFLICT (student, assignment, target) DO UPDATE SET "
              "digest = excluded.digest", student=student, assignment=assignment,
              target=target, digest=digest)


def sent_digests(database: QueueDatabase, target: str) -> dict[tuple[str, str], str]:
    """{(student, assignment): the digest of what last went out to `target`}."""
    with database.connection() as db:
        return {(row["student"], row["assignment"]): row["digest"] for row in db.rows(
            "SELECT student, assignment, digest FROM sent_digests WHERE target = :target",
            target=target)}


def sent_scores(database: QueueDatabase, target: str) -> dict[tuple[str, str], float | None]:
    """{(student, assignment): the score that last went out to `target`}."""
    with database.connection() as db:
        return {(row["student"], row["assignment"]): row["score"] for row in db.rows(
            "SELECT student, assignment, score FROM sent_grades WHERE target = :target",
            target=target)}
