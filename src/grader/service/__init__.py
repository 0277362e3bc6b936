"""The service wing: hand-ins graded as they arrive, for as long as the service runs.

Three rooms, whose imports go one way: the students' page -> after-grading -> the queue
(the page may also ask the queue directly); the queue imports neither, and the service's
top modules (``serving.py``, ``commands.py``) assemble them.

The queue room, ``queue/``: taking hand-ins and grading them.

- ``records.py``: what the queue holds, typed: `QueuedJob` and its `JobState`, where it
  came from (`JobSource`, `SourceKind`), how its feedback went out (`ReleaseOutcome`),
  where its grade was pushed (`PushTarget`), each stored as text an older queue reads.
- ``store.py``: the durable queue: each hand-in's bytes stored first (``blobs.py``: by
  their SHA-256), then a `QueuedJob` row; claims with a lease and a heartbeat,
  duplicates, a bounded number of attempts; `course_store`, the course's own.
- ``queue_database.py``: where the rows are: an SQLite file beside the gradebook,
  or the gradebook's PostgreSQL database when it is one; the same SQL on both, the
  few differences (types, how a writer keeps the others out) in one place.
- ``queue_health.py``: whether the queue answers; a failure that lasts stops the service.
- ``inbound.py``: hand-ins taken from nbgrader's exchange, its inbound folder
  read about once a second.
- ``submitted.py``: a claimed hand-in written into submitted/, where the batch
  reads it, so that both grade through the same path.
- ``release_watch.py``: each assignment's release/ folder watched while the service
  runs, so that a changed release (or a new assignment) is switched to between gradings.
- ``loop.py``: `Service`: one engine kept warm for as long as the releases last, fed by a
  `HandInQueue` of claimed jobs, each result recorded by the single writer as it
  comes back (then `graded` emitted); a clean stop.
- ``events.py``: the events after grading (`GradeEvent`: graded, settled, released), the
  `EventHub` add-ons subscribe to, and the `AddOn` the loop runs beside itself.
- ``status.py``: whether each service is starting, warm (its templates ready), stopped
  or gone, as it writes it into the queue (``queue --status``).

The after-grading room, ``after/``: what follows a grade.

- ``recorded.py``: one record of a grade: the gradebook's score of the hand-in it holds,
  which every view shows (`recorded_jobs`), and what changed since the feedback and the
  pushes went out (`changed_since_sent`).
- ``settled.py``: ONE poller of settled grades (`SettledGrades`, a `Look` per tick:
  the gradebook read once), emitting `settled`; `AfterGrading`, the loop's add-on.
- ``due_feedback.py``: each student's feedback page at their own due date (extensions
  included), made and released through nbgrader's exchange once, recorded in the store
  (then `released` emitted); a hand-in graded after it, when graded (``c.GradingService``).
- ``final_push.py``: each student's grade pushed to the LMS once final.
- ``after_feedback.py``: `make extensions`, naming an extension granted after a
  student's feedback went out.

The students' page room, ``page/`` (its own face says what each module holds): what a
student sees of each check and how many checks they have left, "Check my notebook", one
set of actions (``actions.py``: get, check, hand in, feedback, each answer written once)
that the two transports call as adapters (the file exchange through the home reader, which
reads one saved notebook as its student, and HTTP through the page's API that each
student's own server calls with its own token), the queue as `python -m grader queue`
prints it, the students' commands.

Assembled: ``serving.py``: `run_service`, the loop with `AfterGrading` on one hub, the
exchange watched, a stop that takes too long ended; ``commands.py``: the service's
commands (serve, queue, page, check, student-view), which cli.py adds.

Other code hands a notebook in with
`course_store(settings.data, settings.db_url).hand_in(...)`;
`queue_submitted` hands in what submitted/ holds (`collect-zip --queue`).
"""

from .after.after_feedback import extensions_applied
from .queue.inbound import inbound_folder, take_inbound, watch_inbound
from .page.listing import QUEUE_FIELDS, queue_record, queue_table
from .queue.events import AddOn, EventHub, GradeEvent, Happened
from .queue.loop import LEASE_SECONDS, Service
from .queue.records import (CheckRecord, JobSource, JobState, PushTarget, QueuedJob,
                            ReleaseOutcome, SourceKind)
from .queue.store import MAX_ATTEMPTS, Store, StoreError, course_store
from .queue.submitted import queue_submitted
from .serving import run_service

__all__ = ["AddOn", "CheckRecord", "EventHub", "GradeEvent", "Happened", "JobSource", "JobState",
           "LEASE_SECONDS", "MAX_ATTEMPTS", "PushTarget", "QUEUE_FIELDS", "QueuedJob",
           "ReleaseOutcome", "Service", "SourceKind", "Store", "StoreError", "course_store",
           "extensions_applied", "inbound_folder", "queue_record", "queue_submitted",
           "queue_table", "run_service", "take_inbound", "watch_inbound"]
