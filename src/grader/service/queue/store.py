"""The service's durable queue: each hand-in's bytes stored first, then a job row.

A hand-in's files are written under ``blobs/``, each named by its SHA-256
(folders 0700, files 0600: students never read them), and only then is its
`QueuedJob` added to the queue's database (its records typed in records.py) (one transaction per change of state): an
SQLite file beside the gradebook, or the gradebook's own PostgreSQL database
when it is one (queue_database.py: the same SQL on both).
A worker `claim`s a waiting job with a lease and keeps it with `heartbeat`;
a job whose lease ran out (its worker died) is claimable again, and one
claimed `max_attempts` times without finishing ends `failed` with its reason.
A student's jobs of one assignment are handed out one at a time, in the order
they arrived, so the one recorded last is the one handed in last; a new
submission supersedes the student's submissions of the assignment still waiting
(kept, marked `superseded`, never graded; checks, which the rate limit bounds, are
neither superseded nor supersede), and students are served in turn: a claim takes the waiting job of
the student with the fewest being graded, the earliest of those. The same
bytes handed in again while they are still the student's latest hand-in are
recorded as a `duplicate` and not graded again. The feedback given out at each
student's due date is recorded in ``feedback_releases``, one row per job, and
each grade pushed to an LMS once final in ``grade_pushes``; the gradebook's score
that last went out each way in ``sent_grades`` (recorded.py).
"""

import dataclasses
import datetime
import json
import os
import time

from .blobs import hand_in_digest, read_blobs, write_blob
from .queue_database import (BUSY_SECONDS, Statements, StoreError, is_postgres, queue_database,
                             sqlite_path)
from .records import (FINAL_STATES, CheckRecord, FeedbackRelease, JobSource, JobState,
                      PushTarget, QueuedJob, ReleaseOutcome, SourceKind, job_from_row)
from .sent_digests import remember_digest, sent_scores

MAX_ATTEMPTS = 3  # claims of one job (workers that died on it) before it ends failed
FEEDBACK_SENT = "feedback"  # the target of sent_grades for the feedback released


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


class Store:
    """The queue of hand-ins in the database `path_or_url`, its bytes in `blobs`.

    `path_or_url` is an SQLite file (or sqlite:/// URL), whose bytes are by default
    in ``blobs/`` beside it, or a PostgreSQL URL, whose bytes are in the folder
    `blobs` (the service reads them and hands them on: no worker needs the disk).
    Each method opens its own connection, so a Store may be used from any thread
    or process; every change of state is one transaction. A call waits `busy_seconds`
    for the database while another program holds it locked, then fails (StoreError).
    """

    def __init__(self, path_or_url: str, max_attempts: int = MAX_ATTEMPTS,
                 blobs: str | None = None, busy_seconds: float = BUSY_SECONDS):
        path = sqlite_path(path_or_url)
        if path is None and blobs is None:
            raise StoreError("a queue in PostgreSQL keeps the hand-ins' bytes on disk: "
                             "it needs the folder of its blobs")
        self.max_attempts = max_attempts
        self.blobs = os.path.abspath(blobs or os.path.join(os.path.dirname(path), "blobs"))
        # what root makes here (the hub's page runs as root) belongs to the course's owner
        above = os.path.dirname(os.path.dirname(self.blobs))
        while above and not os.path.isdir(above):
            above = os.path.dirname(above)
        self.owner = os.stat(above or ".")
        for folder in sorted({os.path.dirname(self.blobs), os.path.dirname(path or self.blobs),
                              self.blobs}):  # each folder before what it holds
            os.makedirs(folder, mode=0o700, exist_ok=True)
            os.chmod(folder, 0o700)
            self._owned(folder)
        self.database = queue_database(path_or_url, busy_seconds)
        self.path = path or path_or_url  # the SQLite file, or the PostgreSQL URL
        self.where = self.database.shown  # the queue as it may be shown (no password)
        if path is not None:
            os.chmod(path, 0o600)
            self._owned(path)

    def _owned(self, path: str) -> None:
        """Run as root, give `path` to the owner of the course's data folder (SQLite itself
        does so for its -wal and -shm files), so that the grading service can read it."""
        if os.geteuid() == 0 and os.stat(path).st_uid != self.owner.st_uid:
            os.chown(path, self.owner.st_uid, self.owner.st_gid)

    def _store_blob(self, content: bytes) -> str:
        """Write `content` under its SHA-256 (blobs.py); returns the digest."""
        return write_blob(self.blobs, content, self._owned)

    def hand_in(self, student: str, assignment: str, files: dict[str, bytes],
                source: JobSource, arrived: datetime.datetime | None = None,
                refused: str = "") -> QueuedJob:
        """Store a hand-in's `files` ({relative name: bytes}), then its job; returns the job.

        The same bytes as the student's latest hand-in of `assignment` (of the same
        kind: a check or a submission) give a job in state `duplicate`, which is never
        graded. With `refused` (why), the job is kept refused at once, never graded.
        """
        if not files:
            raise StoreError(f"a hand-in of {assignment} by {student} with no files")
        for name in files:
            parts = name.split("/")
            if name.startswith("/") or any(p in ("", ".", "..") for p in parts):
                raise StoreError(f"a hand-in of {assignment} by {student}: file name {name!r} "
                                 "is not a plain relative path")
        digests = {name: self._store_blob(content) for name, content in files.items()}
        digest = hand_in_digest(digests)
        arrived = (arrived or utc_now()).astimezone(datetime.timezone.utc)
        check = JobSource(source).kind is SourceKind.CHECK
        with self.database.transaction() as db:
            # the latest of the same kind: a check is never the duplicate of a submission
            latest = db.row(
                "SELECT id, digest, state FROM jobs WHERE student = :student AND assignment = "
                ":assignment AND state NOT IN (:duplicate, :superseded) AND (CASE WHEN source = "
                ":check THEN 1 ELSE 0 END) = :is_check ORDER BY id DESC LIMIT 1",
                student=student, assignment=assignment, duplicate=JobState.DUPLICATE,
                superseded=JobState.SUPERSEDED, check=str(SourceKind.CHECK),
                is_check=int(check))
            # one refused or failed (its stored bytes damaged, say) may be handed in again
            duplicate = (latest is not None and latest["digest"] == digest
                         and latest["state"] not in (JobState.REFUSED, JobState.FAILED))
            state = JobState.DUPLICATE if duplicate else JobState.WAITING
            reason = f"the same files as hand-in {latest['id']}" if duplicate else ""
            if refused:
                state, reason = JobState.REFUSED, refused
            added = db.row(
                "INSERT INTO jobs (student, assignment, digest, files, source, state, arrived, "
                "graded, reason) VALUES (:student, :assignment, :digest, :files, :source, "
                ":state, :arrived, :graded, :reason) RETURNING id",
                student=student, assignment=assignment, digest=digest,
                files=json.dumps(digests, sort_keys=True), source=str(source), state=str(state),
                arrived=arrived.isoformat(), reason=reason,
                graded=utc_now().isoformat() if refused else None)
            if state == JobState.WAITING:
                self._supersede(db, added["id"], student, assignment, JobSource(source))
            return self._job(db, added["id"])

    def _supersede(self, db: Statements, newer: int, student: str, assignment: str,
                   source: JobSource) -> None:
        """Mark `student`'s submissions of `assignment` still waiting before `newer`, a
        submission, superseded. Checks are never superseded, nor supersede: each is one
        the student asked for, within the rate limit, and sees the verdict of."""
        if source.kind == SourceKind.CHECK:
            return
        for row in db.rows("SELECT id, source FROM jobs WHERE student = :student AND "
                           "assignment = :assignment AND state = :waiting AND id < :newer",
                           student=student, assignment=assignment, waiting=JobState.WAITING,
                           newer=newer):
            if JobSource(row["source"]).kind != SourceKind.CHECK:
                db.change("UPDATE jobs SET state = :superseded, reason = :reason "
                          "WHERE id = :id", superseded=JobState.SUPERSEDED, id=row["id"],
                          reason=f"superseded by hand-in {newer}, handed in before it "
                          "was graded")

    def claim(self, worker: str, lease_seconds: float) -> QueuedJob | None:
        """The next job to grade, leased to `worker` for `lease_seconds`; None when none waits.

        A job is claimable when it waits or its lease ran out, and no earlier hand-in
        of the same student and assignment is still to be graded; of those, the one of
        the student with the fewest jobs being graded now, the earliest first (a job
        `worker` holds, its lease run out or not, is never handed out to it again). A job
        whose lease ran out after `max_attempts` claims ends `failed` instead.
        """
        now = time.time()
        with self.database.transaction() as db:
            rows = db.rows(
                "SELECT id, student, assignment, state, attempts, worker, lease_until FROM jobs "
                "WHERE state IN (:waiting, :grading) ORDER BY id",
                waiting=JobState.WAITING, grading=JobState.GRADING)
            taken: set[tuple[str, str]] = set()  # a job of the pair is graded or first in line
            grading: dict[str, int] = {}  # each student's jobs being graded now
            first_in_line = []
            for row in rows:
                pair = (row["student"], row["assignment"])
                if pair in taken:
                    continue
                leased = row["state"] == JobState.GRADING
                # a job `worker` holds stays its own, however late its heartbeat (a database
                # that was down): a service never takes back what it is grading itself
                if leased and (row["worker"] == worker or (
                        row["lease_until"] is not None and row["lease_until"] > now)):
                    taken.add(pair)
                    grading[row["student"]] = grading.get(row["student"], 0) + 1
                    continue
                if leased and row["attempts"] >= self.max_attempts:
                    db.change(
                        "UPDATE jobs SET state = :failed, graded = :graded, reason = :reason, "
                        "worker = NULL, lease_until = NULL WHERE id = :id",
                        failed=JobState.FAILED, graded=utc_now().isoformat(),
                        reason=f"its grading stopped {row['attempts']} times without finishing "
                        "(the worker died or hung); not graded", id=row["id"])
                    continue
                taken.add(pair)
                first_in_line.append(row)
            if not first_in_line:
                return None
            # students in turn: the one with the fewest jobs being graded, then the earliest
            chosen = min(first_in_line, key=lambda row: (grading.get(row["student"], 0),
                                                         row["id"]))
            db.change("UPDATE jobs SET state = :grading, attempts = attempts + 1, "
                      "worker = :worker, lease_until = :until WHERE id = :id",
                      grading=JobState.GRADING, worker=worker, until=now + lease_seconds,
                      id=chosen["id"])
            return self._job(db, chosen["id"])

    def heartbeat(self, job_id: int, worker: str, lease_seconds: float = 60.0) -> bool:
        """Extend `worker`'s lease of a job it is grading; False when it no longer holds it."""
        with self.database.transaction() as db:
            changed = db.change(
                "UPDATE jobs SET lease_until = :until WHERE id = :id AND worker = :worker "
                "AND state = :grading", until=time.time() + lease_seconds, id=job_id,
                worker=worker, grading=JobState.GRADING)
        return changed == 1

    def release(self, job_id: int, worker: str, reason: str = "") -> bool:
        """Give a job `worker` holds back to the queue, its claim not counted (a service
        that stops); False when it does not hold it."""
        with self.database.transaction() as db:
            changed = db.change(
                "UPDATE jobs SET state = :waiting, worker = NULL, lease_until = NULL, "
                "attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, "
                "reason = :reason WHERE id = :id AND worker = :worker AND state = :grading",
                waiting=JobState.WAITING, reason=reason, id=job_id, worker=worker,
                grading=JobState.GRADING)
        return changed == 1

    def take_back(self, host_prefix: str, itself: str = "") -> list[int]:
        """End at once the leases of workers named `host_prefix` + process id whose process
        is gone (a service on this machine killed outright), and those named `itself`, the
        name of a service that holds nothing yet (one before it with the same process id
        was killed); returns the jobs' ids. Their next claim counts as an attempt."""
        with self.database.transaction() as db:
            rows = db.rows("SELECT id, worker FROM jobs WHERE state = :grading "
                           "AND substr(worker, 1, :length) = :prefix", grading=JobState.GRADING,
                           length=len(host_prefix), prefix=host_prefix)
            gone = [row["id"] for row in rows if row["worker"] == itself
                    or not process_alive(row["worker"][len(host_prefix):])]
            for job_id in gone:
                db.change("UPDATE jobs SET lease_until = 0, worker = NULL WHERE id = :id",
                          id=job_id)
        return gone

    def retry(self, job_id: int, reason: str) -> QueuedJob:
        """A claimed job whose grading failed: back to the queue with `reason`, or `failed`
        once it has been claimed `max_attempts` times."""
        with self.database.transaction() as db:
            job = self._job(db, job_id)
            if job.attempts >= self.max_attempts:
                state, graded = JobState.FAILED, utc_now().isoformat()
                reason = f"{reason} (after {job.attempts} attempts)"
            else:
                state, graded = JobState.WAITING, None
            db.change("UPDATE jobs SET state = :state, graded = :graded, reason = :reason, "
                      "worker = NULL, lease_until = NULL WHERE id = :id",
                      state=str(state), graded=graded, reason=reason, id=job_id)
            return self._job(db, job_id)

    def finish(self, job_id: int, state: JobState, score: float | None = None,
               max_score: float | None = None, checks: list[CheckRecord] | None = None,
               reason: str = "", release: str = "") -> QueuedJob:
        """A job's final state (graded, failed or refused), with its score and checks, and
        the digest of the release it was graded against (`release`, "": none)."""
        state = JobState(state)
        if state not in FINAL_STATES:
            raise StoreError(f"finish takes a final state ({', '.join(FINAL_STATES)}), "
                             f"not {state}")
        records = [dataclasses.asdict(c) for c in checks or []]
        with self.database.transaction() as db:
            changed = db.change(
                "UPDATE jobs SET state = :state, graded = :graded, score = :score, "
                "max_score = :max_score, checks = :checks, reason = :reason, worker = NULL, "
                "lease_until = NULL WHERE id = :id", state=str(state),
                graded=utc_now().isoformat(), score=score, max_score=max_score,
                checks=json.dumps(records), reason=reason, id=job_id)
            if changed != 1:
                raise StoreError(f"no hand-in {job_id} in the queue {self.where}")
            if release:
                db.change("INSERT INTO graded_against (job_id, release) VALUES (:id, :release) "
                          "ON CONFLICT (job_id) DO UPDATE SET release = excluded.release",
                          id=job_id, release=release)
            return self._job(db, job_id)

    def releases_graded(self) -> dict[int, str]:
        """{job id: the digest of the release it was graded against} of every job graded
        since releases were remembered."""
        with self.database.connection() as db:
            return {row["job_id"]: row["release"]
                    for row in db.rows("SELECT job_id, release FROM graded_against")}

    def job(self, job_id: int) -> QueuedJob:
        with self.database.connection() as db:
            return self._job(db, job_id)

    def jobs(self, student: str | None = None, assignment: str | None = None) -> list[QueuedJob]:
        """Every job, in the order they arrived; only `student`'s, `assignment`'s if given."""
        values = {column: value for column, value in (("student", student),
                                                       ("assignment", assignment))
                  if value is not None}
        where = " AND ".join(f"{column} = :{column}" for column in values)
        query = "SELECT * FROM jobs" + (f" WHERE {where}" if where else "") + " ORDER BY id"
        with self.database.connection() as db:
            return [job_from_row(row) for row in db.rows(query, **values)]

    def known_sources(self, prefix: str) -> set[JobSource]:
        """The sources of every job whose source starts with `prefix` (JobSource.prefix)."""
        with self.database.connection() as db:
            rows = db.rows("SELECT source FROM jobs WHERE substr(source, 1, :length) = :prefix",
                           length=len(prefix), prefix=prefix)
            return {JobSource(row["source"]) for row in rows}

    def record_release(self, job: QueuedJob, outcome: ReleaseOutcome,
                       released: datetime.datetime | None = None) -> None:
        """Record that the feedback of `job` went out (`outcome` says how); once per job."""
        released = (released or utc_now()).astimezone(datetime.timezone.utc)
        with self.database.transaction() as db:
            db.change("INSERT INTO feedback_releases (job_id, student, assignment, digest, "
                      "released, outcome) VALUES (:job_id, :student, :assignment, :digest, "
                      ":released, :outcome) ON CONFLICT (job_id) DO NOTHING",
                      job_id=job.id, student=job.student, assignment=job.assignment,
                      digest=job.digest, released=released.isoformat(),
                      outcome=str(ReleaseOutcome(outcome)))

    def releases(self) -> list[FeedbackRelease]:
        """Every feedback release recorded, in the order of their jobs."""
        with self.database.connection() as db:
            rows = db.rows("SELECT * FROM feedback_releases ORDER BY job_id")
        return [FeedbackRelease(row["job_id"], row["student"], row["assignment"], row["digest"],
                                datetime.datetime.fromisoformat(row["released"]),
                                ReleaseOutcome(row["outcome"])) for row in rows]

    def record_push(self, job: QueuedJob, lms: PushTarget,
                    pushed: datetime.datetime | None = None) -> None:
        """Record that the grade of `job` went to the LMS gradebook `lms`; once per job and
        LMS."""
        pushed = (pushed or utc_now()).astimezone(datetime.timezone.utc)
        with self.database.transaction() as db:
            db.change("INSERT INTO grade_pushes (job_id, lms, student, assignment, pushed) "
                      "VALUES (:job_id, :lms, :student, :assignment, :pushed) "
                      "ON CONFLICT (job_id, lms) DO NOTHING", job_id=job.id, lms=lms,
                      student=job.student, assignment=job.assignment, pushed=pushed.isoformat())

    def pushed(self, lms: PushTarget) -> set[int]:
        """The jobs whose grade went to the LMS `lms`."""
        with self.database.connection() as db:
            return {row["job_id"] for row in db.rows(
                "SELECT job_id FROM grade_pushes WHERE lms = :lms", lms=lms)}

    def record_sent(self, student: str, assignment: str, target: str, score: float,
                    sent: datetime.datetime | None = None, digest: str = "") -> None:
        """Remember the gradebook's score of `student`'s `assignment` that went out to
        `target` (FEEDBACK_SENT, or an LMS's PushTarget), and the digest of what went out
        (sent_digests.py), replacing what went out before."""
        sent = (sent or utc_now()).astimezone(datetime.timezone.utc)
        with self.database.transaction() as db:
            db.change("INSERT INTO sent_grades (student, assignment, target, score, sent) "
                      "VALUES (:student, :assignment, :target, :score, :sent) "
                      "ON CONFLICT (student, assignment, target) DO UPDATE SET "
                      "score = excluded.score, sent = excluded.sent", student=student,
                      assignment=assignment, target=target, score=score, sent=sent.isoformat())
            remember_digest(db, student, assignment, target, digest)

    def sent_scores(self, target: str) -> dict[tuple[str, str], float | None]:
        """{(student, assignment): the score that last went out to `target`}."""
        return sent_scores(self.database, target)

    def files(self, job: QueuedJob) -> dict[str, bytes]:
        """The bytes of a job's files, as handed in; StoreError when one is missing or no
        longer has the SHA-256 it was stored under (damaged on disk): never graded."""
        return read_blobs(self.blobs, job.files, f"hand-in {job.id}")

    def _job(self, db: Statements, job_id: int) -> QueuedJob:
        row = db.row("SELECT * FROM jobs WHERE id = :id", id=job_id)
        if row is None:
            raise StoreError(f"no hand-in {job_id} in the queue {self.where}")
        return job_from_row(row)


def process_alive(pid_text: str) -> bool:
    """Whether the process of this id (text) runs on this machine."""
    try:
        os.kill(int(pid_text), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True



def course_store(data_folder: str, db_url: str = "", busy_seconds: float = BUSY_SECONDS
                 ) -> Store:
    """The course's queue, its bytes in service/blobs/ of its data folder (course-data/):
    in the gradebook's database when `db_url`, the gradebook's, is PostgreSQL; otherwise
    service/queue.db in the data folder, beside the gradebook."""
    folder = os.path.join(data_folder, "service")
    if is_postgres(db_url):
        return Store(db_url, blobs=os.path.join(folder, "blobs"), busy_seconds=busy_seconds)
    return Store(os.path.join(folder, "queue.db"), busy_seconds=busy_seconds)
