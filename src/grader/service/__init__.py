"""The service wing: hand-ins graded as they arrive, for as long as the service runs.

- ``records.py``: what the queue holds, typed: `QueuedJob` and its `JobState`, where it
  came from (`JobSource`, `SourceKind`), how its feedback went out (`ReleaseOutcome`),
  where its grade was pushed (`PushTarget`), each stored as text an older queue reads.
- ``store.py``: the durable queue: each hand-in's bytes stored first (by their
  SHA-256), then a `QueuedJob` row; claims with a lease and a heartbeat, duplicates, a
  bounded number of attempts; `course_store`, the course's own.
- ``queue_database.py``: where the rows are: an SQLite file beside the gradebook,
  or the gradebook's PostgreSQL database when it is one; the same SQL on both, the
  few differences (types, how a writer keeps the others out) in one place.
- ``inbound.py``: hand-ins taken from nbgrader's exchange, its inbound folder
  read about once a second.
- ``submitted.py``: a claimed hand-in written into submitted/, where the batch
  reads it, so that both grade through the same path.
- ``loop.py``: `run_service`: one engine kept warm for as long as the releases last, fed by a
  `HandInQueue` of claimed jobs, each result recorded by the single writer as it
  comes back; a clean stop on SIGTERM.
- ``recorded.py``: one record of a grade: the gradebook's score of the hand-in it holds,
  which every view shows (`recorded_jobs`), and what changed since the feedback and the
  pushes went out (`changed_since_sent`).
- ``after_feedback.py``: `make extensions`, naming an extension granted after a
  student's feedback went out.
- ``status.py``: whether each service is starting, warm (its templates ready), stopped
  or gone, as it writes it into the queue (``queue --status``).
- ``release_watch.py``: each assignment's release/ folder watched while the service
  runs, so that a changed release (or a new assignment) is switched to between gradings.
- ``due_feedback.py``: each student's feedback page at their own due date (extensions
  included), made and released through nbgrader's exchange once, recorded in the store;
  a hand-in graded after it, when graded (``c.GradingService``).
- ``page/``: the students' page (its own face says what each module holds): what a
  student sees of each check and how many checks they have left, "Check my notebook",
  the page on the hub by the file exchange or over HTTP, the student's commands.
- ``commands.py``: the service's commands (serve, queue, page, check, student-view),
  which cli.py adds.

Other code hands a notebook in with
`course_store(settings.data, settings.db_url).hand_in(...)`;
`queue_submitted` hands in what submitted/ holds (`collect-zip --queue`).
"""

from .after_feedback import extensions_applied
from .inbound import inbound_folder, take_inbound, watch_inbound
from .page.listing import QUEUE_FIELDS, queue_record, queue_table
from .loop import LEASE_SECONDS, Service, run_service
from .records import (CheckRecord, JobSource, JobState, PushTarget, QueuedJob, ReleaseOutcome,
                      SourceKind)
from .store import MAX_ATTEMPTS, Store, StoreError, course_store
from .submitted import queue_submitted

__all__ = ["CheckRecord", "JobSource", "JobState", "LEASE_SECONDS", "MAX_ATTEMPTS", "PushTarget",
           "QUEUE_FIELDS", "QueuedJob", "ReleaseOutcome", "Service", "SourceKind", "Store",
           "StoreError", "course_store", "extensions_applied", "inbound_folder",
           "queue_record", "queue_submitted", "queue_table", "run_service", "take_inbound",
           "watch_inbound"]
