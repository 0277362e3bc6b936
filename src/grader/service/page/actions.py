"""What a student may ask of the page, and each answer, written once for both transports.

The page has two transports: the file exchange's page (page.py), which reads the
notebook the student saved in their home folder on the hub, and the course over HTTP
(page_api.py), whose hand-in panel in the student's own server reads it there and sends
it with the student's own token. Each is an adapter: it moves bytes and tells who asks,
and calls one of these actions, which decide and say what happened:

- `get`: the released notebooks of an assignment (the panel writes them into
  ``ASSIGNMENT/`` on the student's server, never over a notebook the student changed).
- `check`: "Check my notebook": the notebooks sent, checked as everywhere
  (requests.ask_for_check: refused before anything is stored when they cannot be
  graded, within the rate limit).
- `hand_in`: the same notebooks recorded as the student's hand-in in the service's queue
  with the service's arrival time and the notebooks' digest, as a hand-in from the
  exchange is; the grading, the gradebook, the late policy and the feedback at the due
  date do not know which transport brought it.
- `feedback`: the feedback pages of the student's latest graded hand-in, once given out
  at their own due date (due_feedback.py records it).
- `ask_for_regrade`: once that feedback is out, a request that one check or the explain
  question be looked at again (grader.recording.asked_regrades keeps it for the staff).

Each returns an `Answer`: what became of the request (`PageOutcome`) and the one sentence
the student is shown; nothing is stored or spent when a request is refused.
"""

import dataclasses
import os
from enum import StrEnum

from ...recording import AskStatus, ask_regrade
from ...settings import Settings
from ..queue.records import JobSource, JobState, QueuedJob, SourceKind
from ..queue.release_watch import release_folder
from ..queue.store import Store, utc_now
from .requests import ask_for_check, submit_words, unfit_files


class SavedIn(StrEnum):
    """Where the transport read the student's saved notebooks."""

    HOME = "home"  # the student's home folder on the hub (the file exchange's page)
    SERVER = "server"  # the student's own server, read by its hand-in panel (over HTTP)


# (where the notebooks are, in the student's words; how the student gets one)
MISSING = {SavedIn.HOME: ("", "fetch the assignment from the Assignments tab and save it"),
           SavedIn.SERVER: (" on your server", "press Get, answer and save it")}


class PageOutcome(StrEnum):
    QUEUED = "queued"  # a check, queued for its checks
    HANDED_IN = "handed in"  # recorded as the student's hand-in
    SAME_AGAIN = "same again"  # the same files as before: nothing new stored, nothing spent
    REFUSED = "refused"  # nothing stored, nothing spent
    GIVEN = "given"  # released notebooks or feedback pages handed over
    NOT_YET = "not yet"  # not released, or no feedback given out yet
    ASKED = "asked"  # a regrade request kept for the staff


@dataclasses.dataclass(frozen=True)
class Sent:
    """The notebooks a transport brought for a request ({NAME.ipynb: bytes}), why any that
    is there could not be brought, and where it read them."""

    files: dict[str, bytes]
    saved_in: SavedIn
    problems: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Answer:
    """What became of a request and the sentence the student is shown; the job it queued
    (or the hand-in whose feedback is given), and the files it gives (name: bytes)."""

    outcome: PageOutcome
    sentence: str
    job: QueuedJob | None = None
    files: dict[str, bytes] = dataclasses.field(default_factory=dict)
    hand_in: int | None = None


def notebook_names(settings: Settings, assignment: str) -> list[str]:
    return sorted(settings.instructor_notebooks(assignment))


def released_notebooks(settings: Settings, assignment: str) -> dict[str, bytes] | None:
    """{NOTEBOOK.ipynb: its released bytes} of `assignment`, or None while it is not
    released."""
    folder = release_folder(settings, assignment)
    found = {}
    for name in notebook_names(settings, assignment):
        path = os.path.join(folder, f"{name}.ipynb")
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            found[f"{name}.ipynb"] = handle.read()
    return found


def get(settings: Settings, assignment: str) -> Answer:
    """"Get": the released notebooks of `assignment`."""
    found = released_notebooks(settings, assignment)
    if found is None:
        return Answer(PageOutcome.NOT_YET, f"{assignment} is not released yet (ask your "
                      "instructor)")
    return Answer(PageOutcome.GIVEN, f"{assignment}'s released notebooks", files=found)


def unsent(settings: Settings, assignment: str, sent: Sent) -> str:
    """Why nothing of `sent` can be taken (no notebook there, or each unreadable), or ""."""
    if sent.files:
        return ""
    if sent.problems:
        return "; ".join(sent.problems)
    place, how = MISSING[sent.saved_in]
    where = ", ".join(f"~/{assignment}/{name}.ipynb"
                      for name in notebook_names(settings, assignment))
    return f"no saved notebook at {where}{place}; {how}"


def check(settings: Settings, store: Store, student: str, assignment: str, sent: Sent
          ) -> Answer:
    """"Check my notebook": the notebooks sent, checked within the rate limit."""
    problem = unsent(settings, assignment, sent)
    if problem:
        return Answer(PageOutcome.REFUSED, f"not checked: {problem}; it costs no check")
    asked = ask_for_check(settings, store, student, assignment, sent.files)
    if asked.job is None:
        return Answer(PageOutcome.REFUSED, asked.refusal)
    if asked.job.state == JobState.DUPLICATE:
        return Answer(PageOutcome.SAME_AGAIN, "not checked again: your saved notebook is the same "
                      f"as when it was last checked ({asked.job.reason}); it costs no check",
                      asked.job)
    left = asked.allowance.sentence() if asked.allowance else ""
    return Answer(PageOutcome.QUEUED, f"hand-in {asked.job.id} of {assignment} is queued for its "
                  f"checks; {left}", asked.job)


def hand_in(settings: Settings, store: Store, student: str, assignment: str, sent: Sent
            ) -> Answer:
    """"Hand in": the notebooks sent, recorded as the student's hand-in at the service's
    time; the latest before the student's own due date counts, as with the exchange."""
    problem = unsent(settings, assignment, sent) or unfit_files(settings, assignment,
                                                                sent.files)
    if problem:
        return Answer(PageOutcome.REFUSED, f"not handed in: {problem}; nothing was recorded")
    arrived = utc_now()
    source = JobSource.of(SourceKind.HUB, f"{student}+{assignment}+{arrived:%Y-%m-%dT%H%M%S.%fZ}")
    job = store.hand_in(student, assignment, sent.files, source, arrived)
    if job.state == JobState.DUPLICATE:
        return Answer(PageOutcome.SAME_AGAIN, "not handed in again: your saved notebook is the "
                      f"same as your last hand-in ({job.reason}), which stands", job)
    held = submit_words(settings, store, job)
    return Answer(PageOutcome.HANDED_IN, f"handed in: hand-in {job.id} of {assignment} at "
                  f"{arrived:%Y-%m-%d %H:%M:%S} UTC (digest {job.digest[:12]}); it is graded in "
                  "turn" + (f"; {held}" if held else ""), job)


def released_feedback(settings: Settings, store: Store, student: str, assignment: str
                      ) -> tuple[int, dict[str, str]] | None:
    """(the hand-in, {notebook: its feedback page's path}) given out to `student` at their
    due date, or None while none is."""
    releases = [r for r in store.releases() if r.student == student
                and r.assignment == assignment]
    if not releases:
        return None
    folder = os.path.join(settings.feedback, student, assignment)
    pages = {name: os.path.join(folder, f"{name}.html")
             for name in notebook_names(settings, assignment)
             if os.path.isfile(os.path.join(folder, f"{name}.html"))}
    return (max(r.job_id for r in releases), pages) if pages else None


def feedback(settings: Settings, store: Store, student: str, assignment: str) -> Answer:
    """The feedback pages given out to `student` ({NOTEBOOK.html: bytes}), with the
    hand-in they are of."""
    given = released_feedback(settings, store, student, assignment)
    if given is None:
        return Answer(PageOutcome.NOT_YET, f"no feedback of {assignment} yet: it is given out at "
                      "your due date")
    hand_in_id, pages = given
    files = {}
    for name, path in sorted(pages.items()):
        with open(path, "rb") as handle:
            files[f"{name}.html"] = handle.read()
    return Answer(PageOutcome.GIVEN, f"the feedback of hand-in {hand_in_id} of {assignment}",
                  files=files, hand_in=hand_in_id)


def ask_for_regrade(settings: Settings, store: Store, student: str, assignment: str, item: str,
                    message: str) -> Answer:
    """"Ask for a regrade": `student` (the login, never a form's field) asks that `item` of
    `assignment` be looked at again, once their feedback of it is out."""
    out = released_feedback(settings, store, student, assignment) is not None
    typed = message.replace("\r\n", "\n")  # a form sends each line break as CR LF
    asked = ask_regrade(settings, student, assignment, item, typed, feedback_out=out)
    return Answer(PageOutcome.ASKED if asked.status == AskStatus.ASKED else PageOutcome.REFUSED,
                  asked.sentence)
