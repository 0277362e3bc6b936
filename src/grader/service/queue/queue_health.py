"""The service's queue while it runs: a database that fails is said once, waited for, and
the service stopped, naming it, when it is gone or does not come back.

Every thread of the service (the claimer, the heartbeat, the exchange's watcher, the
main loop recording results) calls the queue through `QueueHealth.persist`: a call
that fails because the database cannot be reached, is locked or restarts
(`QueueUnreachable`) is tried again every second, the trouble printed once, and the
recovery once; past `patience` seconds the service stops with exit status 1. An
SQLite queue whose file was deleted (or emptied: no table `jobs`) stops it at once:
the record of what was waiting is lost with it, and a queue made again silently would
hide that; started again, the service makes a new one, and what the exchange's
inbound folder holds is queued again from there.
"""

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ...safe_text import writable
from .inbound import POLL_SECONDS, take_inbound
from .queue_database import SqliteQueue, StoreError
from .records import JobSource, SourceKind
from .store import Store

T = TypeVar("T")
PAUSE_SECONDS = 1.0  # between tries of a queue that does not answer


class QueueHealth:
    """Whether the service's queue answers, shared by the service's threads."""

    def __init__(self, store: Store, stop: threading.Event, patience: float):
        self.store, self.stop, self.patience = store, stop, patience
        self.failure = ""  # why the service stopped, once it did
        self.trouble_since: float | None = None
        self.lock = threading.Lock()

    def gone(self, error: StoreError) -> bool:
        """Whether the queue is an SQLite file that was deleted or emptied."""
        database = self.store.database
        return isinstance(database, SqliteQueue) and (
            not os.path.exists(database.path) or "no such table" in str(error))

    def persist(self, call: Callable[[], T], reads: bool = False) -> T | None:
        """`call()`'s result, tried again while the queue does not answer; None when the
        service stops first (stopping, or the queue gone or silent too long: then no call
        is made, lest an SQLite file deleted be made again, empty). A call that only
        `reads` and works does not end the trouble: an SQLite queue locked by another
        program is read still, and written to by no one."""
        while not self.failure:
            try:
                result = call()
            except StoreError as error:
                if not self.failed(error):
                    return None
                self.stop.wait(PAUSE_SECONDS)
                continue
            if not reads:
                self.answered()
            return result
        return None

    def failed(self, error: StoreError) -> bool:
        """Report a call that failed; True when it may be tried again."""
        with self.lock:
            if self.failure:
                return False
            if self.gone(error):
                self.give_up(f"the service's queue {self.store.where} is gone (deleted or "
                             "emptied: no table jobs): the service stops; started again, it "
                             "makes a new one, and queues again what the exchange holds")
                return False
            now = time.monotonic()
            if self.trouble_since is None:
                self.trouble_since = now
                print(f"serve: {writable(str(error))}; trying again for up to "
                      f"{self.patience:g} s", file=sys.stderr, flush=True)
            elif now - self.trouble_since > self.patience:
                self.give_up(f"{writable(str(error))}, for {self.patience:g} s: the service "
                             "stops; the hand-ins it held go back to the queue once it answers")
                return False
        return not self.stop.is_set()

    def answered(self) -> None:
        if self.trouble_since is None:
            return
        with self.lock:
            if self.trouble_since is not None:
                print(f"serve: the service's queue {self.store.where} answers again after "
                      f"{time.monotonic() - self.trouble_since:.0f} s", file=sys.stderr,
                      flush=True)
                self.trouble_since = None

    def give_up(self, message: str) -> None:
        self.failure = message
        print(f"serve: {message}", file=sys.stderr, flush=True)
        self.stop.set()


def watch_inbound_while_answered(health: QueueHealth, inbound: str, stop: threading.Event,
                                 poll: float = POLL_SECONDS, check_owner: bool = True) -> None:
    """The exchange's inbound folder taken every `poll` seconds (inbound.py) until `stop`
    is set, looked at only while the queue answers: a queue in trouble is said once, not
    once per folder and second."""
    store = health.store
    known: set[JobSource] = set()
    while not stop.is_set():
        queued = health.persist(
            lambda: store.known_sources(JobSource.prefix(SourceKind.EXCHANGE)), reads=True)
        if queued is None:
            return
        known |= queued
        if health.trouble_since is None:  # a queue read but not written (locked) waits
            take_inbound(store, inbound, known, check_owner)
        stop.wait(poll)
