"""The service wing: hand-ins graded as they arrive, for as long as the service runs.

- ``store.py``: the durable queue: each hand-in's bytes stored first (by their
  SHA-256), then a `Job` row in SQLite; claims with a lease and a heartbeat,
  duplicates, a bounded number of attempts.
"""

from .store import MAX_ATTEMPTS, CheckRecord, Job, JobState, Store, StoreError

__all__ = ["CheckRecord", "Job", "JobState", "MAX_ATTEMPTS", "Store", "StoreError"]
