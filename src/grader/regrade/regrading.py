"""`make regrade`: who changes if the class is graded again against the current release,
and, only when told to apply, exactly those students changed.

A dry run grades the chosen students again in memory, compares each result with
the student's part of the grade report, prints every student who would change
(old and new total, the checks that change) and the regrade requests it answers
(regrade-requests.csv's rows, then the course page's open requests),
and writes one record under regrades/ beside reports/ (when, who ran it, the
reason, each change). It writes nothing else: not the gradebook, the autograded
notebooks, the reports or the feedback.

Applied, the same run hands the changed students' results, and only theirs, to
the single writer (gradebook, autograded notebook, report part), with the regrade
noted in the autograded notebook's metadata, and writes each of their feedback
pages again (nbgrader generate_feedback for that student), which then says it
was regraded, when and why. Every other student's files are left as they were.
"""

import datetime
import getpass
import json
import os
import subprocess
import sys

from ..files import write_atomically
from ..plan import HandIn
from ..recording import Writer, read_student_parts
from ..reports import number, read_grades
from ..results import StudentResult
from ..safe_text import one_line, shown, writable
from ..settings import Limits, Settings
from .changes import StudentChange, answer_to, in_notebook_order, student_change
from .grading import grade_again, hand_ins_of
from .requests import (REQUESTS_FILE, RegradeRequest, RequestSource, page_requests,
                       read_regrade_requests)

REGRADE_NOTE = "regraded"  # the autograded notebook's metadata key: {"at", "reason"}


def regrades_folder(settings: Settings) -> str:
    """Where the regrade records go: regrades/ beside submitted/ (course-data/regrades)."""
    return os.path.join(os.path.dirname(settings.submitted), "regrades")


def gradebook_scores(settings: Settings, assignment: str) -> dict[str, float]:
    """{student: score as grades.csv has it} of one assignment."""
    _, [grades] = read_grades(settings, [assignment])
    return {student: entry.score for student, entry in grades.submissions.items()}


def note_regrade(result: StudentResult, at: str, reason: str) -> None:
    """The regrade (when and why) in the metadata of each of the result's autograded
    notebooks, where the feedback page reads it."""
    for notebook in result.notebooks:
        if notebook.autograded is not None:
            notebook.autograded.setdefault("metadata", {})[REGRADE_NOTE] = {
                "at": at, "reason": reason}


def write_feedback_again(settings: Settings, assignment: str, student: str) -> str:
    """The student's feedback pages generated again (nbgrader generate_feedback for that
    student only), if they had any; returns what happened, in words."""
    folder = os.path.join(settings.feedback, student, assignment)
    if not os.path.isdir(folder):
        return "no feedback page yet (make feedback writes it, with the regrade noted)"
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    done = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", assignment,
                           f"--student={student}", "--force"], cwd=settings.root, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        return f"feedback NOT regenerated: {one_line(done.stderr[-300:])}"
    return f"feedback regenerated in {os.path.relpath(folder, settings.root)}"


def apply_changes(settings: Settings, assignment: str, hand_ins: dict[str, HandIn],
                  results: dict[str, StudentResult], changed: list[str], at: str,
                  reason: str) -> dict[str, str]:
    """The changed students' results recorded by the single writer and their feedback
    written again; returns {student: what happened to the feedback}."""
    writer = Writer(settings, assignment)
    writer.start()
    failed = set()
    try:
        for student in changed:
            note_regrade(results[student], at, reason)
            if writer.record(hand_ins[student], results[student]) is not None:
                failed.add(student)
    finally:
        writer.close()
    writer.finish()
    return {student: ("not recorded (see the messages above)" if student in failed
                      else write_feedback_again(settings, assignment, student))
            for student in changed}


def regrade(settings: Settings, assignment: str, limits: Limits,
            students: list[str] | None = None, reason: str = "", apply: bool = False,
            jobs: int = 1) -> list[str]:
    """Grade `students` (default: all who handed in) of `assignment` again; returns the lines
    to print. Without `apply` nothing but the record under regrades/ is written."""
    requests = [r for r in read_regrade_requests(os.path.join(settings.root, REQUESTS_FILE))
                if r.assignment == assignment] + page_requests(settings, assignment)
    hand_ins = {h.student: h for h in hand_ins_of(settings, assignment, students)}
    old = {r.student: r for r in read_student_parts(settings.reports, assignment)}
    scores_before = gradebook_scores(settings, assignment)
    results = grade_again(settings, assignment, limits, list(hand_ins.values()), jobs)
    changes: dict[str, StudentChange] = {}
    for student, result in sorted(results.items()):
        change = student_change(old.get(student), result)
        if change is not None:
            changes[student] = in_notebook_order(change, result)
    now = datetime.datetime.now(datetime.timezone.utc)
    at = now.strftime("%Y-%m-%d %H:%M:%S UTC")
    reason = one_line(reason) or "no reason given"
    mode = "applied" if apply else "dry run: nothing changed"
    lines = [f"regrade of {assignment} ({mode}): {len(results)} student(s) graded again "
             f"against the current release; {len(changes)} change(s)", f"reason: {reason}"]
    for change in changes.values():
        lines.append(f"  {change.student}: {number(change.old_total)} -> "
                     f"{number(change.new_total)} of {number(change.max_total)} "
                     f"autograded points")
        lines += [f"    {check.text()}" for check in change.checks]
    lines += request_lines(requests, set(results), changes)
    feedback: dict[str, str] = {}
    scores_after: dict[str, float] = {}
    if apply and changes:
        feedback = apply_changes(settings, assignment, hand_ins, results, list(changes), at,
                                 reason)
        scores_after = gradebook_scores(settings, assignment)
        for student in changes:
            lines.append(f"  {student}: gradebook score {number(scores_before.get(student))} "
                         f"-> {number(scores_after.get(student))}; {feedback[student]}")
    record = {"assignment": assignment, "at": at, "by": writable(getpass.getuser()),
              "reason": reason, "applied": apply, "regraded": sorted(results),
              "changes": [c.to_json() for c in changes.values()],
              "gradebook_before": {s: scores_before.get(s) for s in changes},
              "gradebook_after": {s: scores_after.get(s) for s in changes} if apply else {},
              "feedback": feedback,
              "requests": [{"student": r.student, "check": r.check, "message": r.message,
                            "answer": answer_to(r, set(results), changes),
                            "source": str(r.source), "id": r.request_id} for r in requests]}
    name = f"{assignment}-{now:%Y%m%dT%H%M%S%fZ}-{'applied' if apply else 'dry-run'}.json"
    path = os.path.join(regrades_folder(settings), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomically(path, json.dumps(record, indent=1, ensure_ascii=False))
    lines.append(f"record: {os.path.relpath(path, settings.root)}")
    if not apply and changes:
        lines.append("nothing was changed; run again with APPLY=1 (--apply) to change "
                     "these students and no one else")
    elif apply and changes:
        lines.append("then: make grades (the pages and exports) and make release-feedback "
                     "(the new pages to the students)")
    return lines


def request_lines(requests: list[RegradeRequest], regraded: set[str],
                  changes: dict[str, StudentChange]) -> list[str]:
    """The regrade requests of the assignment, the file's rows then the course page's open
    ones, and what the regrade does for each."""
    from_file = [r for r in requests if r.source == RequestSource.CSV]
    if not from_file:
        lines = [f"regrade requests ({REQUESTS_FILE}): none for this assignment"]
    else:
        lines = [f"regrade requests ({REQUESTS_FILE}): {len(from_file)}"]
    for request in from_file:
        lines.append(f"  {shown(request.student)}, {shown(request.check)}: "
                     f"\"{shown(request.message)}\" -> "
                     f"{answer_to(request, regraded, changes)}")
    from_page = [r for r in requests if r.source == RequestSource.PAGE]
    lines.append(f"regrade requests ({RequestSource.PAGE}, open): "
                 f"{len(from_page) or 'none for this assignment'}")
    for request in from_page:
        lines.append(f"  {shown(request.student)}, {shown(request.check)} (request "
                     f"{request.request_id}): \"{shown(request.message)}\" -> "
                     f"{answer_to(request, regraded, changes)}")
    return lines
