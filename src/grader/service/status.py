"""Whether a grading service is warm: its state, kept in the queue's database.

Each `python -m grader serve` writes one row of the table ``services``, named as
its leases are (host and process id): `starting` from the moment it opens the
queue until the templates and checks of every assignment are ready, `warm` from
then (with the time), `starting` again while it prepares a new release or starts
its workers again, and `stopped` when it ends, with why. Its heartbeat thread
writes the time it was last seen. A row that is not `stopped` whose process is
gone (on this host) or that was not seen for longer than its lease is shown as
`gone`: the service was killed. `python -m grader queue` prints these rows above
its table; ``queue --status`` prints them alone and exits 0 only when a service
is warm (a supervisor's readiness check), ``--status --json`` as JSON.
"""

import dataclasses
import datetime
import enum
import socket
import time

from .page.listing import iso_utc
from .store import Store, process_alive, utc_now


class ServiceState(enum.StrEnum):
    STARTING = "starting"  # opened the queue; templates and checks not ready yet
    WARM = "warm"  # templates and checks ready: hand-ins are graded as they come
    STOPPED = "stopped"  # ended (why is its detail)
    GONE = "gone"  # shown, never stored: not stopped, but its process is gone or silent


@dataclasses.dataclass(frozen=True)
class ServiceStatus:
    """One service as `grader queue` shows it."""

    name: str  # host:pid, as on its leases
    state: ServiceState
    since: datetime.datetime  # when it entered this state (warm: when its templates were ready)
    started: datetime.datetime
    seen: datetime.datetime  # the last time it wrote here
    detail: str  # what it grades, or why it stopped
    state_before: str = ""  # shown gone: the state it wrote last

    def record(self) -> dict[str, str | None]:
        """As ``queue --status --json`` prints it."""
        return {"service": self.name, "state": str(self.state), "since": iso_utc(self.since),
                "started": iso_utc(self.started), "seen": iso_utc(self.seen),
                "detail": self.detail}

    def line(self) -> str:
        """One line of `grader queue`: the service, its state, since when, and why."""
        since = iso_utc(self.since)
        what = {ServiceState.STARTING: f"starting since {since}: templates not ready yet",
                ServiceState.WARM: f"warm since {since}",
                ServiceState.STOPPED: f"stopped at {since}",
                ServiceState.GONE: f"gone (last seen {iso_utc(self.seen)}, {self.state_before}"
                                   f" since {since}): it ended without stopping"}[self.state]
        return f"service {self.name}: {what}" + (f" ({self.detail})" if self.detail else "")


def begin(store: Store, name: str, detail: str = "", lease_seconds: float = 60.0) -> None:
    """Write that the service `name` is starting, in a row of its own: the rows of
    services that stopped, no longer of interest, are removed, and one of the same name
    (a service before it with the same process id, killed) is replaced."""
    now = utc_now().isoformat()
    with store.database.transaction() as db:
        db.change("DELETE FROM services WHERE state = :stopped OR name = :name",
                  stopped=ServiceState.STOPPED, name=name)
        db.change("INSERT INTO services (name, state, since, started, seen, lease_seconds, "
                  "detail) VALUES (:name, :state, :now, :now, :seen, :lease, :detail)",
                  name=name, state=ServiceState.STARTING, now=now, seen=time.time(),
                  lease=lease_seconds, detail=detail)


def announce(store: Store, name: str, state: ServiceState, detail: str = "") -> None:
    """Write that the service `name`, begun, is now in `state`."""
    with store.database.transaction() as db:
        db.change("UPDATE services SET state = :state, since = :now, seen = :seen, "
                  "detail = :detail WHERE name = :name", name=name, state=str(state),
                  now=utc_now().isoformat(), seen=time.time(), detail=detail)


def seen(store: Store, name: str) -> None:
    """The service `name` is alive (its heartbeat)."""
    with store.database.transaction() as db:
        db.change("UPDATE services SET seen = :seen WHERE name = :name", name=name,
                  seen=time.time())


def stop_the_gone(store: Store, host_prefix: str) -> None:
    """Mark stopped the services of this host (`host_prefix`: host and ':') whose
    process is gone (killed outright), so that a new one is not listed beside them."""
    with store.database.transaction() as db:
        for row in db.rows("SELECT name, state FROM services WHERE state != :stopped AND "
                           "substr(name, 1, :length) = :prefix", stopped=ServiceState.STOPPED,
                           length=len(host_prefix), prefix=host_prefix):
            if not process_alive(row["name"][len(host_prefix):]):
                db.change("UPDATE services SET state = :stopped, since = :now, detail = "
                          ":detail WHERE name = :name", stopped=ServiceState.STOPPED,
                          now=utc_now().isoformat(), name=row["name"],
                          detail=f"ended while {row['state']} without saying it stopped "
                          "(killed, or its queue failed)")


def host_prefix() -> str:
    """What the names of this host's services start with (loop.py's worker_name)."""
    return f"{socket.gethostname()}:"


def services(store: Store, host_prefix: str, now: float | None = None) -> list[ServiceStatus]:
    """Every service the queue has a row of, in the order they started; one not stopped
    whose process on this host (`host_prefix`) is gone, or that was not seen for longer
    than its lease, is shown `gone`."""
    now = time.time() if now is None else now
    with store.database.connection() as db:
        rows = db.rows("SELECT * FROM services ORDER BY started, name")
    shown = []
    for row in rows:
        state = ServiceState(row["state"])
        here = row["name"].startswith(host_prefix)
        silent = now - row["seen"] > row["lease_seconds"]
        dead = here and not process_alive(row["name"][len(host_prefix):])
        before = ""
        if state != ServiceState.STOPPED and (dead or silent):
            state, before = ServiceState.GONE, row["state"]
        shown.append(ServiceStatus(
            row["name"], state, datetime.datetime.fromisoformat(row["since"]),
            datetime.datetime.fromisoformat(row["started"]),
            datetime.datetime.fromtimestamp(row["seen"], datetime.timezone.utc),
            row["detail"], before))
    return shown


def status_lines(shown: list[ServiceStatus]) -> list[str]:
    """The lines `grader queue` prints about the services; none started says so."""
    return [status.line() for status in shown] or ["service: never started on this queue"]


def any_warm(shown: list[ServiceStatus]) -> bool:
    return any(status.state == ServiceState.WARM for status in shown)
