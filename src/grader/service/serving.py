"""The grading service assembled: the queue room's loop with the after-grading add-on on it.

`run_service` is what ``python -m grader serve`` runs: the course's queue opened, the
exchange's inbound folder watched (queue/inbound.py), the loop (queue/loop.py) serving
with one `EventHub`, on which the after-grading room (after/settled.py: one poller of
settled grades, the feedback released and the grades pushed) hangs, and a guard that
ends a stop that takes too long.
"""

import os
import sys
import threading
from collections.abc import Mapping

from ..settings import GradingService, Settings
from .after.final_push import Pusher
from .after.settled import AfterGrading
from .queue.events import EventHub
from .queue.inbound import POLL_SECONDS, checks_owner, inbound_folder
from .queue.loop import LEASE_SECONDS, Service
from .queue.queue_health import QueueHealth, watch_inbound_while_answered
from .queue.status import ServiceState
from .queue.store import course_store

STOP_SECONDS = 15.0  # after stop_seconds: the workers' own clean-up may take this, then it ends


def run_service(settings: Settings, workers: int = 1, scheduler: str | None = None,
                stop: threading.Event | None = None, lease_seconds: float = LEASE_SECONDS,
                pushers: Mapping[str, Pusher] | None = None, hub: EventHub | None = None
                ) -> str:
    """What `python -m grader serve` runs: the exchange watched and the store's jobs graded
    until `stop` is set; `pushers` are the LMS pushes c.GradingService.push_final_grades
    may name, `hub` the events other add-ons subscribed to (graded, settled, released).
    Returns why the service stopped on its own ('' when it was stopped)."""
    stop = stop or threading.Event()
    store = course_store(settings.data, settings.db_url,
                         GradingService(config=settings.config).queue_busy_seconds)
    hub = hub or EventHub()
    service = Service(settings, store, workers, scheduler, lease_seconds, hub,
                      [AfterGrading(settings, store, hub, pushers)])
    service.health = QueueHealth(store, stop, settings.gradebook_retry_seconds)
    watcher = threading.Thread(target=watch_inbound_while_answered,
                               args=(service.health, inbound_folder(settings), stop,
                                     POLL_SECONDS, checks_owner(settings.config)),
                               name="exchange", daemon=True)
    stopped = threading.Event()
    guard = threading.Thread(target=stop_in_time, args=(service, stop, stopped),
                             name="stop guard", daemon=True)
    watcher.start()
    guard.start()
    why = "it failed"  # unless it returns
    try:
        service.serve(stop)
        why = service.health.failure or "stopped"
    finally:
        stopped.set()
        stop.set()
        watcher.join(timeout=10)
        service.announce(ServiceState.STOPPED, why)
    return service.health.failure


def stop_in_time(service: Service, stop: threading.Event, stopped: threading.Event) -> None:
    """Once `stop` is set, give the service its stop_seconds to finish what is in flight;
    past that, its jobs go back to the queue and its workers are stopped, each ending its
    student's sandbox and removing its cgroups, and the service ends as usual. If even that
    does not end it within STOP_SECONDS, the process ends outright (its workers and their
    sandboxes die with it; the next start removes their folders and cgroups)."""
    stop.wait()
    if stopped.wait(service.stop_seconds):
        return
    print(f"serve: the gradings in flight did not finish within {service.stop_seconds:g} s: "
          "given back to the queue", file=sys.stderr, flush=True)
    service.abandon()
    if stopped.wait(STOP_SECONDS):
        return
    print(f"serve: still not stopped {STOP_SECONDS:g} s later: ending now", file=sys.stderr,
          flush=True)
    os._exit(3)
