"""Hand-ins from nbgrader's exchange: its inbound folder read about once a second.

`nbgrader submit` (and the hub's Assignment List) copies a student's files to
``<exchange root>/<course id>/inbound/<student>+<assignment>+<timestamp>[+random]/``
and writes timestamp.txt, then submission_secret.txt, last. A folder is taken
once it is complete (its secret written, or its timestamp older than
SETTLE_SECONDS for an exchange that writes none) and only once: its name is
the job's source. `make collect` reads the same folder and is not disturbed.
"""

import datetime
import os
import pwd
import sys
import threading
import time

from traitlets.config import Config

from ...safe_text import shown
from ...settings import Settings
from .queue_database import QueueUnreachable
from .records import JobSource, SourceKind
from .store import Store, StoreError

POLL_SECONDS = 1.0  # how often the inbound folder is listed
SETTLE_SECONDS = 5.0  # a folder without a secret is taken once its timestamp is this old
MAX_FILES = 200  # files taken from one inbound folder at most
MAX_BYTES = 64 * 1024 * 1024  # bytes taken from one inbound folder at most


def inbound_folder(settings: Settings) -> str:
    """The exchange's inbound folder of the course, as nbgrader's Exchange.root sets it."""
    from nbgrader.exchange.default import Exchange  # imports nbgrader's apps: when needed

    return os.path.join(Exchange(config=settings.config).root, settings.course_id, "inbound")


def inbound_files(folder: str) -> dict[str, bytes]:
    """The regular files under one inbound folder ({relative name: bytes}); links and
    checkpoints are left out. StoreError when it holds too many or too much."""
    files: dict[str, bytes] = {}
    total = 0
    for parent, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f != ".ipynb_checkpoints"
                            and not os.path.islink(os.path.join(parent, f)))
        for name in sorted(names):
            path = os.path.join(parent, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            if len(files) >= MAX_FILES:
                raise StoreError(f"{folder} holds more than {MAX_FILES} files")
            with open(path, "rb") as handle:
                content = handle.read(MAX_BYTES + 1 - total)
            total += len(content)
            if total > MAX_BYTES:
                raise StoreError(f"{folder} holds more than {MAX_BYTES // 2**20} MiB")
            files[os.path.relpath(path, folder).replace(os.sep, "/")] = content
    return files


def complete(folder: str, now: float) -> bool:
    """Whether `nbgrader submit` has finished writing `folder`."""
    if os.path.isfile(os.path.join(folder, "submission_secret.txt")):
        return True
    stamp = os.path.join(folder, "timestamp.txt")
    return os.path.isfile(stamp) and now - os.path.getmtime(stamp) > SETTLE_SECONDS


def arrival(folder: str) -> datetime.datetime:
    """When a hand-in reached the exchange: the last change (ctime) of its folder and files,
    which no student can set back (they can set a file's mtime, or write any timestamp.txt)."""
    moments = [os.lstat(folder).st_ctime]
    for parent, _, names in os.walk(folder):
        moments += [os.lstat(os.path.join(parent, name)).st_ctime for name in names]
    return datetime.datetime.fromtimestamp(max(moments), datetime.timezone.utc)


def owner_problem(folder: str, student: str) -> str:
    """Why an inbound folder is not `student`'s: it claims to be theirs, but another account
    owns it (as nbgrader's collect checks it, c.ExchangeCollect.check_owner); "" when it is."""
    uid = os.lstat(folder).st_uid
    try:
        owner = pwd.getpwuid(uid).pw_name
    except KeyError:
        owner = f"user id {uid}, no account"
    if owner == student:
        return ""
    return (f"refused: it claims to be handed in by {shown(student)} but is owned by "
            f"{shown(owner)} (a hand-in in another student's name?); not graded")


def take_inbound(store: Store, inbound: str, known: set[JobSource],
                 check_owner: bool = True) -> list[int]:
    """Store every complete inbound folder not in `known` (sources, updated); returns the
    ids of the jobs made. A folder that another account owns than the student it names is
    recorded refused, never graded (unless `check_owner` is off: c.ExchangeCollect.check_owner).
    A folder that cannot be read is reported and skipped for good; one the queue's database
    could not take (unreachable) is taken at the next call."""
    try:
        names = sorted(os.listdir(inbound))
    except FileNotFoundError:
        return []
    made = []
    now = time.time()
    for name in names:
        source = JobSource.of(SourceKind.EXCHANGE, name)
        folder = os.path.join(inbound, name)
        parts = name.split("+")
        if source in known or len(parts) < 3 or not os.path.isdir(folder) \
                or os.path.islink(folder) or not complete(folder, now):
            continue
        known.add(source)
        try:
            files = inbound_files(folder)
            refused = owner_problem(folder, parts[0]) if check_owner else ""
            job = store.hand_in(parts[0], parts[1], files, source, arrival(folder), refused)
            made.append(job.id)
            if refused:
                print(f"exchange: {shown(name)}: {refused}", file=sys.stderr)
        except QueueUnreachable as error:  # taken at the next look
            known.discard(source)
            print(f"exchange: {shown(name)} not taken yet: {shown(str(error))}",
                  file=sys.stderr)
        except (OSError, StoreError) as error:
            print(f"exchange: {shown(name)} not taken: {shown(str(error))}",
                  file=sys.stderr)
    return made


def checks_owner(config: Config) -> bool:
    """Whether each inbound folder's owner must be the student it names:
    c.ExchangeCollect.check_owner, nbgrader's own setting (on unless set)."""
    section = config.ExchangeCollect if "ExchangeCollect" in config else {}
    return bool(section.get("check_owner", True))


def watch_inbound(store: Store, inbound: str, stop: threading.Event,
                  poll: float = POLL_SECONDS, check_owner: bool = True) -> None:
    """Take the inbound folder's new hand-ins every `poll` seconds until `stop` is set."""
    known = store.known_sources(JobSource.prefix(SourceKind.EXCHANGE))
    while not stop.is_set():
        take_inbound(store, inbound, known, check_owner)
        stop.wait(poll)
