"""After grading: ONE poller of settled grades, which the feedback release and the pushes read.

Every ``c.GradingService.feedback_check_seconds`` the poller takes one `Look` (the
queue's jobs, the gradebook's due dates and grades, each read at most once) and emits
`settled` once for each hand-in whose grade became final for release: the student's
latest graded hand-in, nothing of theirs waiting or being graded, their own due date
passed. The feedback at the due date (due_feedback.py, which emits `released`) and the
push of final grades to the LMS (final_push.py) act on the same look. `AfterGrading` is
the add-on the loop runs (queue/events.py): the poller's thread, and the releases graded
against told to it as the loop prepares them.
"""

import datetime
import threading
from collections.abc import Mapping, Sequence
from typing import Protocol

from ...settings import GradingService, Settings
from ...worker import Assignment
from ..queue.events import EventHub, GradeEvent
from ..queue.records import PushTarget
from ..queue.store import Store
from .due_feedback import (DueFeedback, Look, RunCommand, feedback_due, ready_hand_ins,
                           release_at_due, run_nbgrader)
from .final_push import FinalPush, Pusher, chosen_pusher
from .recorded import graded_against_earlier


class Reader(Protocol):
    """What acts on each look (DueFeedback, FinalPush): the hand-ins it serves, the lines
    a look gives, and how its failures are said."""

    assignments: set[str]
    what: str

    def look(self, look: Look) -> list[str]:
        """Act on `look`; the lines to print."""
        ...


class SettledGrades:
    """The one poller: a look per tick, `settled` emitted once per hand-in, each reader
    acting on the same look."""

    def __init__(self, settings: Settings, store: Store, hub: EventHub,
                 readers: Sequence[Reader] = ()):
        self.settings, self.store, self.hub = settings, store, hub
        self.readers = list(readers)
        self.assignments: set[str] = set()
        self.settled: set[int] = set()  # the hand-ins `settled` was emitted for
        self.failing: set[str] = set()  # the readers whose last look failed (said once)
        self.looks = 0  # looks taken (each one read of the queue)

    def tick(self, now: datetime.datetime | None = None) -> list[str]:
        """One look: `settled` emitted for each hand-in newly final, then every reader's
        turn; a reader that fails is said once (until it works again), the others go on."""
        with self.hub.ordering:  # a hand-in recorded now is read with its `graded` emitted
            look = Look.taken(self.settings, self.store, self.assignments, now)
        self.looks += 1
        ready = ready_hand_ins(look.jobs, self.settled)
        for job in feedback_due(ready.values(), self.settled, look.dues(), look.now) if ready \
                else []:
            self.settled.add(job.id)
            self.hub.emit(GradeEvent.SETTLED, job, look.now)
        lines = []
        for reader in self.readers:
            reader.assignments = self.assignments
            try:
                said = reader.look(look)
            except Exception as error:  # noqa: BLE001 (said; the other readers and grading go on)
                if reader.what not in self.failing:
                    first = (str(error).strip().splitlines() or [""])[0]
                    lines.append(f"{reader.what}: {type(error).__name__}: {first}; tried "
                                 "again at the next look")
                self.failing.add(reader.what)
                continue
            if reader.what in self.failing:
                self.failing.discard(reader.what)
                lines.append(f"{reader.what}: working again")
            lines += said
        return lines


class AfterGrading:
    """The after-grading add-on of a grading service: the feedback at each due date
    (unless c.GradingService.release_feedback_at_due is off) and the final grades pushed
    (if c.GradingService.push_final_grades names one of `pushers`), on one poller."""

    def __init__(self, settings: Settings, store: Store, hub: EventHub,
                 pushers: Mapping[str, Pusher] | None = None,
                 run: RunCommand = run_nbgrader):
        chosen = GradingService(config=settings.config)
        self.store, self.every = store, chosen.feedback_check_seconds
        readers: list[Reader] = []
        if chosen.release_feedback_at_due:
            readers.append(DueFeedback(settings, store, (), run, hub))
        push = chosen_pusher(chosen.push_final_grades, pushers or {})
        if push is not None:
            readers.append(FinalPush(settings, store, (), PushTarget(chosen.push_final_grades),
                                     push))
        self.poller = SettledGrades(settings, store, hub, readers)

    def threads(self, stop: threading.Event) -> list[threading.Thread]:
        """The poller's thread, when it has a reader."""
        if not self.poller.readers:
            return []
        return [threading.Thread(target=release_at_due, name="after grading", daemon=True,
                                 args=(self.poller.tick, stop, self.every, "after grading"))]

    def serving(self, prepared: Mapping[str, Assignment], changed: Sequence[str]) -> list[str]:
        """The releases graded against now: the poller looks at their hand-ins; a line per
        assignment of `changed` whose recorded grades are of an earlier release."""
        self.poller.assignments = set(prepared)
        return graded_against_earlier(self.store, prepared, list(changed)) if changed else []

