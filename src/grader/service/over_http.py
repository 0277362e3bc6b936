"""The loop of the course page over HTTP: get, check, hand in, feedback (no shared disk).

With ``c.HubTransport.transport = "http"`` the page does for each released assignment
what nbgrader's exchange does on one machine, through the student's own server's
contents API (contents.py), never through a home folder:

- `get_released`: the released notebooks written into ``ASSIGNMENT/`` on the student's
  server. Never over a notebook that is there already: one the student changed is kept
  and named, and the released one written beside it (``NOTEBOOK.released.ipynb``).
- `check_saved`: the notebooks as last saved there, checked as "Check my notebook" is
  everywhere (requests.ask_for_check: refused before anything is stored when they
  cannot be graded, within the rate limit).
- `hand_in_saved`: the same read, recorded as the student's hand-in in the service's
  queue with the service's arrival time and the notebooks' digest, as a hand-in from
  the exchange is (its timestamp.txt is written from the arrival when graded, as
  submitted.py does for any hand-in without one); the grading, the gradebook, the late
  policy and the feedback at the due date do not know which transport brought it.
- `released_feedback`, `feedback_to_server`: the feedback page of the student's latest
  graded hand-in, once given out at their own due date (due_feedback.py records it),
  shown on the page and, on request, written into ``ASSIGNMENT/feedback/HAND-IN/``.

Each returns the one sentence the page shows; nothing is stored or spent when a
request is refused.
"""

import os

from ..plan import Unreadable, parse_submission
from ..settings import Settings
from .contents import ServerRefusal, StudentServer
from .records import JobSource, JobState, SourceKind
from .release_watch import release_folder
from .requests import ask_for_check, submit_words, unfit_files
from .store import Store, utc_now


def notebook_names(settings: Settings, assignment: str) -> list[str]:
    return sorted(settings.instructor_notebooks(assignment))


def same_cells(saved: bytes, released: bytes) -> bool:
    """Whether a saved notebook holds the released cells unchanged (what running them or
    saving adds, outputs and metadata, is not a change)."""
    def cells(content: bytes) -> list[tuple[str, str]] | None:
        try:
            found = parse_submission(content)["cells"]
        except Unreadable:
            return None
        return [(c["cell_type"], c["source"]) for c in found]
    return saved == released or cells(saved) is not None and cells(saved) == cells(released)


def get_released(settings: Settings, server: StudentServer, assignment: str) -> str:
    """Write the released notebooks of `assignment` into the student's server."""
    folder = release_folder(settings, assignment)
    written, kept, there = [], [], []
    for name in notebook_names(settings, assignment):
        released_path = os.path.join(folder, f"{name}.ipynb")
        if not os.path.isfile(released_path):
            return f"{assignment} is not released yet (ask your instructor); nothing was written"
        with open(released_path, "rb") as handle:
            released = handle.read()
        path = f"{assignment}/{name}.ipynb"
        found = server.entry(path)
        if found is None:
            server.write(path, released)
            written.append(f"~/{path}")
            continue
        try:
            saved = server.read(path)
        except ServerRefusal as refusal:
            kept.append(f"~/{path} is kept ({refusal})")
            continue
        if same_cells(saved, released):
            there.append(f"~/{path}")
            continue
        beside = f"{assignment}/{name}.released.ipynb"
        if server.entry(beside) is None:
            server.write(beside, released)
            kept.append(f"~/{path} holds your changes and is kept; the released notebook "
                        f"is written beside it as ~/{beside}")
        else:
            kept.append(f"~/{path} holds your changes and is kept; ~/{beside} is there "
                        "already and is kept too")
    parts = ([f"written into your server: {', '.join(written)}"] if written else []) + kept \
        + ([f"already on your server as released: {', '.join(there)}"] if there else [])
    return "; ".join(parts)


def read_saved(settings: Settings, server: StudentServer, assignment: str
               ) -> tuple[dict[str, bytes], str]:
    """(the student's saved notebooks of `assignment`, read from their server; why they
    cannot be taken, or "")."""
    files = {}
    for name in notebook_names(settings, assignment):
        try:
            files[f"{name}.ipynb"] = server.read(f"{assignment}/{name}.ipynb")
        except FileNotFoundError:
            continue
        except ServerRefusal as refusal:
            return {}, str(refusal)
    if not files:
        where = ", ".join(f"~/{assignment}/{n}.ipynb" for n in notebook_names(settings,
                                                                             assignment))
        return {}, (f"no saved notebook at {where} on your server; press Get, answer and "
                    "save it")
    return files, unfit_files(settings, assignment, files)


def check_saved(settings: Settings, store: Store, server: StudentServer, student: str,
                assignment: str) -> str:
    """"Check my notebook": the saved notebooks checked, within the rate limit."""
    files, problem = read_saved(settings, server, assignment)
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


def hand_in_saved(settings: Settings, store: Store, server: StudentServer, student: str,
                  assignment: str) -> str:
    """"Hand in": the saved notebooks recorded as the student's hand-in, at the service's
    time; the latest before the student's own due date counts, as with the exchange."""
    files, problem = read_saved(settings, server, assignment)
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


def feedback_to_server(settings: Settings, store: Store, server: StudentServer, student: str,
                       assignment: str) -> str:
    """Write the student's feedback pages into ``ASSIGNMENT/feedback/HAND-IN/`` on their
    server; never over a file that is there and differs."""
    given = released_feedback(settings, store, student, assignment)
    if given is None:
        return f"no feedback of {assignment} yet: it is given out at your due date"
    job_id, pages = given
    written, there = [], []
    for name, page in sorted(pages.items()):
        with open(page, "rb") as handle:
            content = handle.read()
        path = f"{assignment}/feedback/{job_id}/{name}.html"
        if server.entry(path) is None:
            server.write(path, content)
            written.append(f"~/{path}")
        elif server.read(path) == content:
            there.append(f"~/{path}")
        else:
            return (f"~/{path} on your server differs from your feedback and is kept; "
                    "move it away to have the feedback written there")
    return "; ".join(([f"feedback written into your server: {', '.join(written)}"]
                      if written else []) + ([f"already on your server: {', '.join(there)}"]
                                             if there else []))
