"""What happens to a hand-in after it is graded, as events that add-ons hang on.

Three events, in this order for each hand-in that reaches the gradebook:

- `GradeEvent.GRADED`: the loop recorded its result (the gradebook has it);
- `GradeEvent.SETTLED`: its grade is final for release: the student's own due date has
  passed and nothing of theirs of the assignment is waiting or being graded;
- `GradeEvent.RELEASED`: its feedback went out.

An `EventHub` holds the handlers (`subscribe(event, handler)`) and calls each in the
order it subscribed (`emit`); a handler that fails is reported and the others still
run: an add-on never stops the grading. The loop emits `graded`; the after-grading
room's one poller of settled grades emits `settled`, and its feedback release
`released`. An `AddOn` is what the loop runs beside itself (service/after/ is one): its
threads, and a word each time the releases graded against are prepared.
"""

import dataclasses
import datetime
import enum
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ...safe_text import writable
from ...worker import Assignment
from .records import QueuedJob


class GradeEvent(enum.StrEnum):
    GRADED = "graded"  # a hand-in's result recorded in the gradebook
    SETTLED = "settled"  # its grade final for release: due date passed, nothing pending
    RELEASED = "released"  # its feedback out


@dataclasses.dataclass(frozen=True)
class Happened:
    """One event of one hand-in: which, its job, and when (UTC)."""

    event: GradeEvent
    job: QueuedJob
    at: datetime.datetime


Handler = Callable[[Happened], None]


class EventHub:
    """The handlers of each event, called in the order they subscribed."""

    def __init__(self) -> None:
        self.handlers: dict[GradeEvent, list[Handler]] = {event: [] for event in GradeEvent}
        self.lock = threading.Lock()  # the loop's threads and the poller emit
        # held while a hand-in is recorded and `graded` emitted, and while the poller reads
        # the queue: so `settled` never comes before `graded`
        self.ordering = threading.RLock()

    def subscribe(self, event: GradeEvent, handler: Handler) -> None:
        """Call `handler` with each `event` from now on."""
        with self.lock:
            self.handlers[GradeEvent(event)].append(handler)

    def emit(self, event: GradeEvent, job: QueuedJob,
             at: datetime.datetime | None = None) -> None:
        """Call every handler of `event` with it; one that fails is said on stderr."""
        happened = Happened(GradeEvent(event), job,
                            at or datetime.datetime.now(datetime.timezone.utc))
        with self.lock:
            handlers = list(self.handlers[happened.event])
        for handler in handlers:
            try:
                handler(happened)
            except Exception as error:  # noqa: BLE001 (said; the grading goes on)
                print(writable(f"serve: a handler of {happened.event} for hand-in {job.id} "
                               f"failed: {type(error).__name__}: {error}"),
                      file=sys.stderr, flush=True)


class AddOn(Protocol):
    """What the loop runs beside itself for as long as it serves."""

    def threads(self, stop: threading.Event) -> list[threading.Thread]:
        """The threads to start with the service (they end once `stop` is set)."""
        ...

    def serving(self, prepared: Mapping[str, Assignment], changed: Sequence[str]) -> list[str]:
        """The releases now graded against (`changed`: those just prepared again, a new
        release); the lines to print."""
        ...
