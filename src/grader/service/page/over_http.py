"""The course over HTTP: what the page's API does for a student's own server (no shared disk).

With ``c.HubTransport.transport = "http"`` the page never reaches into a student's
server: the student's server comes to the page. Its hand-in panel (the server extension
`grader.student_server`, run by the student's server as the student) asks the page's API
(page_api.py) under the student's own hub token, and the page answers for the token's
owner only, whatever the request says:

- `released_notebooks`: the released notebooks of an assignment, which the panel writes
  into ``ASSIGNMENT/`` on the student's server (never over a notebook the student
  changed).
- `check_files`: notebooks the panel read from the student's server, checked as
  "Check my notebook" is everywhere (requests.ask_for_check: refused before anything is
  stored when they cannot be graded, within the rate limit).
- `hand_in_files`: the same notebooks recorded as the student's hand-in in the service's
  queue with the service's arrival time and the notebooks' digest, as a hand-in from the
  exchange is; the grading, the gradebook, the late policy and the feedback at the due
  date do not know which transport brought it.
- `released_feedback`: the feedback pages of the student's latest graded hand-in, once
  given out at their own due date (due_feedback.py records it).

Each returns the one sentence the student is shown; nothing is stored or spent when a
request is refused.
"""

import os

from ...settings import Settings
from ..records import JobSource, JobState, SourceKind
from ..release_watch import release_folder
from .requests import ask_for_check, submit_words, unfit_files
from ..store import Store, utc_now


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


def taken_files(settings: Settings, assignment: str, files: dict[str, bytes]) -> str:
    """Why the notebooks a student's server sent cannot be taken, or ""."""
    if not files:
        where = ", ".join(f"~/{assignment}/{name}.ipynb"
                          for name in notebook_names(settings, assignment))
        return f"no saved notebook at {where} on your server; press Get, answer and save it"
    return unfit_files(settings, assignment, files)


def check_files(settings: Settings, store: Store, student: str, assignment: str,
                files: dict[str, bytes]) -> str:
    """"Check my notebook": the notebooks the student's server sent, checked within the
    rate limit."""
    problem = taken_files(settings, assignment, files)
    if problem:
        return f"not checked: {problem}; it costs no check"
    asked = ask_for_check(settings, store, student, assignment, files)
    if asked.job is None:
        return asked.refusal
    if asked.job.state == JobState.DUPLICATE:
        return (f"not checked again: your saved notebook is the same as when it was last "
                f"checked ({asked.job.reason}); it costs no check")
    left = asked.allowance.sentence() if asked.allowance else ""
    return f"hand-in {asked.job.id} of {assignment} is queued for its checks; {left}"


def hand_in_files(settings: Settings, store: Store, student: str, assignment: str,
                  files: dict[str, bytes]) -> str:
    """"Hand in": the notebooks the student's server sent, recorded as the student's hand-in
    at the service's time; the latest before the student's own due date counts, as with
    the exchange."""
    problem = taken_files(settings, assignment, files)
    if problem:
        return f"not handed in: {problem}; nothing was recorded"
    arrived = utc_now()
    source = JobSource.of(SourceKind.HUB, f"{student}+{assignment}+{arrived:%Y-%m-%dT%H%M%S.%fZ}")
    job = store.hand_in(student, assignment, files, source, arrived)
    if job.state == JobState.DUPLICATE:
        return (f"not handed in again: your saved notebook is the same as your last hand-in "
                f"({job.reason}), which stands")
    held = submit_words(settings, store, job)
    return (f"handed in: hand-in {job.id} of {assignment} at {arrived:%Y-%m-%d %H:%M:%S} UTC "
            f"(digest {job.digest[:12]}); it is graded in turn" + (f"; {held}" if held else ""))


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
