"""Regrade requests students ask on the course page, kept until the staff answer them.

A student asks, once their feedback is out, that one item of an assignment be looked at
again: a check's grade_id or the explain question's, the assignment's grade cells as
nbgrader's gradebook holds them. One open request per student and item; the message is
kept as typed (at most `MAX_MESSAGE` characters, never cut) and shown escaped wherever it
shows. The staff answer it, with or without a change of score.

The requests are JSON under course-data/regrade-requests/, one file per assignment,
each written whole (`write_atomically`) while a lock file keeps other writers out, so two
requests asked at once are both kept. A file that cannot be read is a `CourseError`
naming it, and it is left as it is.
"""

import contextlib
import dataclasses
import datetime
import fcntl
import json
import os
import secrets
from collections.abc import Iterator
from enum import StrEnum

from nbgrader.api import Gradebook, MissingEntry

from ..files import write_atomically
from ..settings import CourseError, Settings

MAX_MESSAGE = 2000  # characters of a request's message
FOLDER = "regrade-requests"  # under course-data/
LOCK = ".lock"


class RequestState(StrEnum):
    OPEN = "open"  # waiting for the staff
    ANSWERED = "answered"


class AskStatus(StrEnum):
    ASKED = "asked"  # a request stored, open
    ANSWERED = "answered"  # the staff's answer stored
    REFUSED = "refused"  # nothing stored


@dataclasses.dataclass(frozen=True)
class AskedRegrade:
    """One student's request that one item of an assignment be looked at again."""

    id: str  # random, url-safe
    student: str
    assignment: str
    item: str  # a grade_id of the assignment's grade cells
    message: str  # as typed
    asked_at: str  # aware UTC, ISO 8601
    state: RequestState = RequestState.OPEN
    answer: str = ""
    changed: bool = False  # whether the staff changed the score
    by: str = ""  # who answered
    answered_at: str = ""  # aware UTC, ISO 8601; "" while open

    def to_json(self) -> dict[str, object]:
        return dict(dataclasses.asdict(self), state=str(self.state))

    @classmethod
    def from_json(cls, row: dict[str, object]) -> "AskedRegrade":
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**dict({k: v for k, v in row.items() if k in fields},
                          state=RequestState(row["state"])))


@dataclasses.dataclass(frozen=True)
class AskOutcome:
    """What became of a request or an answer, the sentence that says so, and the request."""

    status: AskStatus
    sentence: str
    request: AskedRegrade | None = None


def requests_folder(settings: Settings) -> str:
    return os.path.join(settings.data, FOLDER)


def requests_file(settings: Settings, assignment: str) -> str:
    return os.path.join(requests_folder(settings), f"{assignment}.json")


@contextlib.contextmanager
def locked(settings: Settings) -> Iterator[None]:
    """The requests' lock held: one writer at a time, in this process or another."""
    folder = requests_folder(settings)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, LOCK), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_asked_regrades(path: str) -> list[AskedRegrade]:
    """The requests of one file ([] when there is none); CourseError naming a bad file."""
    if not os.path.isfile(path):
        return []
    try:
        with open(path, encoding="utf-8") as handle:
            rows = json.load(handle)["requests"]
        return [AskedRegrade.from_json(row) for row in rows]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CourseError(f"the regrade requests {path} cannot be read ({error}); it is left as "
                          "it is: mend or move it") from None


def write_requests(path: str, requests: list[AskedRegrade]) -> None:
    write_atomically(path, json.dumps({"requests": [r.to_json() for r in requests]},
                                      indent=1, ensure_ascii=False))


def request_items(settings: Settings, assignment: str) -> dict[str, str]:
    """{grade_id: "check" or "explain question"} of the assignment's grade cells as the
    gradebook holds them, in the notebooks' order; {} when it is not in the gradebook."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            row = gb.find_assignment(assignment)
        except MissingEntry:
            return {}
        return {cell.name: ("explain question" if cell.cell_type == "markdown" else "check")
                for notebook in sorted(row.notebooks, key=lambda n: n.name)
                for cell in notebook.grade_cells}


def utc_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def ask_refusal(settings: Settings, student: str, assignment: str, item: str, message: str,
            feedback_out: bool, asker: str | None) -> str:
    """Why the request cannot be taken, before the store is read ("" when it can)."""
    if asker is not None and asker != student:
        return "not asked: a student asks for a regrade of their own work only"
    if assignment not in settings.assignments:
        return f"not asked: there is no assignment {assignment[:80]!r}"
    if not feedback_out:
        return (f"not asked: your feedback of {assignment} is not out yet; ask once you have "
                "read it")
    if not message.strip():
        return "not asked: say what should be looked at again (the message is empty)"
    if len(message) > MAX_MESSAGE:
        return (f"not asked: the message has {len(message):,} characters, more than the "
                f"{MAX_MESSAGE:,} a request may have; shorten it and ask again")
    if item not in request_items(settings, assignment):
        return f"not asked: {item[:80]!r} is not a check or question of {assignment}"
    return ""


def ask_regrade(settings: Settings, student: str, assignment: str, item: str, message: str,
                *, feedback_out: bool, asker: str | None = None) -> AskOutcome:
    """`student`'s request that `item` of `assignment` be looked at again, stored open; or
    refused with a sentence, nothing stored. `student` is who the login says asks
    (`asker`, when the caller has both, must be the same)."""
    why = ask_refusal(settings, student, assignment, item, message, feedback_out, asker)
    if why:
        return AskOutcome(AskStatus.REFUSED, why)
    path = requests_file(settings, assignment)
    with locked(settings):
        requests = read_asked_regrades(path)
        if any(r.student == student and r.item == item and r.state == RequestState.OPEN
               for r in requests):
            return AskOutcome(AskStatus.REFUSED, f"not asked: your request about {item} of "
                              f"{assignment} is still open; the staff answer it first")
        request = AskedRegrade(secrets.token_urlsafe(12), student, assignment, item, message,
                               utc_iso())
        write_requests(path, requests + [request])
    return AskOutcome(AskStatus.ASKED, f"asked: your request about {item} of {assignment} is "
                      "with the staff; their answer shows here", request)


def all_requests(settings: Settings, assignment: str | None = None) -> list[AskedRegrade]:
    """Every request (of `assignment`, when given), oldest first."""
    names = [assignment] if assignment is not None else settings.assignments
    found = [r for name in names for r in read_asked_regrades(requests_file(settings, name))]
    return sorted(found, key=lambda r: r.asked_at)  # stable: asked in one second, in turn


def open_requests(settings: Settings, assignment: str | None = None,
                  student: str | None = None) -> list[AskedRegrade]:
    """The open requests (of `assignment`, of `student`, when given), oldest first."""
    return [r for r in all_requests(settings, assignment)
            if r.state == RequestState.OPEN and student in (None, r.student)]


def requests_of(settings: Settings, student: str) -> list[AskedRegrade]:
    """Every request `student` asked, open or answered, oldest first."""
    return [r for r in all_requests(settings) if r.student == student]


def answer_request(settings: Settings, request_id: str, by: str, answer: str,
                   changed: bool) -> AskOutcome:
    """The staff's answer to an open request, stored with who answered and when; refused
    with a sentence (nothing stored) when there is no such open request or no answer."""
    if not answer.strip():
        return AskOutcome(AskStatus.REFUSED, "not answered: the answer is empty")
    if len(answer) > MAX_MESSAGE:
        return AskOutcome(AskStatus.REFUSED, f"not answered: the answer has {len(answer):,} "
                          f"characters, more than {MAX_MESSAGE:,}")
    with locked(settings):
        for name in settings.assignments:
            path = requests_file(settings, name)
            requests = read_asked_regrades(path)
            for index, request in enumerate(requests):
                if request.id != request_id:
                    continue
                if request.state != RequestState.OPEN:
                    return AskOutcome(AskStatus.REFUSED, f"not answered: the request was "
                                      f"answered already by {request.by}", request)
                done = dataclasses.replace(request, state=RequestState.ANSWERED, answer=answer,
                                           changed=changed, by=by, answered_at=utc_iso())
                requests[index] = done
                write_requests(path, requests)
                return AskOutcome(AskStatus.ANSWERED, f"answered: {request.student}'s request "
                                  f"about {request.item} of {name}", done)
    return AskOutcome(AskStatus.REFUSED, f"not answered: there is no request {request_id!r}")
