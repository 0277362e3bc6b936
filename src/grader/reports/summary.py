"""The short grade report, summary.txt: per student what happened and what they scored, who
was late or had an extension (and what it cost), per check who passed it and the mean
points, and the students who need attention.

Scores come from the gradebook, as grades.csv's do (manual grades from formgrader
and late penalties included), so the two always agree; what happened to each
notebook (graded, missing, unreadable, failed) comes from the grader's report.
The file is tab-separated; student-controlled text is written as plain single
lines that a spreadsheet does not read as formulas (safe_text.spreadsheet_cell).
"""


import os
from datetime import datetime, timedelta
from typing import Any

from ..files import write_atomically
from ..recording import hours_text, read_student_parts
from ..results import NotebookResult, NotebookStatus, StudentResult
from ..safe_text import one_line, spreadsheet_cell
from ..settings import Settings
from .grades import AssignmentGrades, SubmissionGrades, number, read_grades
from .roster import Person


def load_records(settings: Settings, assignment: str) -> list[StudentResult]:
    """Every student's part of the assignment's grade report."""
    return read_student_parts(settings.reports, assignment)


def notebook_state(result: NotebookResult) -> str:
    """graded / missing / unreadable / failed (graded, but a cell crashed or timed out)."""
    if result.status != NotebookStatus.GRADED:
        return str(result.status)
    if any(t.status in ("timeout", "died", "not run") for t in result.tests):
        return "failed"
    return "graded"


def late_text(seconds: float) -> str:
    """'2 h 5 min late', '40 s late'."""
    seconds = int(round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days} d" if days else "", f"{hours} h" if hours else "",
             f"{minutes} min" if minutes else "", f"{secs} s" if secs and not days else ""]
    return " ".join(p for p in parts if p) + " late"


def duration_text(seconds: float) -> str:
    """'48 h', '1 d 1 h', '30 min' (late_text without its 'late')."""
    return late_text(seconds)[:-len(" late")]


def penalty_text(submission: SubmissionGrades) -> str:
    """'-2 points (20%)', 'no penalty'."""
    if not submission.penalty:
        return "no penalty"
    share = (f" ({100 * submission.penalty / submission.raw_score:.3g}%)"
             if submission.raw_score else "")
    return f"-{number(submission.penalty)} points{share}"


def deadline_text(submission: SubmissionGrades | None, extension: timedelta | None = None,
                  due: datetime | None = None) -> str:
    """What the student's due date and hand-in time came to, in words: 'late 1 d 1 h:
    -2 points (20%)', '1 d 1 h after the class's due date, extension 48 h: on time',
    'late 1 d 1 h: 2 late days used, 3 left, no penalty'. `submission` may be None
    (nothing handed in); `due` is the class's due date."""
    given = f"extension {hours_text(extension)}" if extension is not None else ""
    if submission is None:
        until = f" (due {due + extension:%Y-%m-%d %H:%M} UTC)" if due is not None else ""
        return f"{given}{until}: nothing handed in yet"
    if submission.seconds_late <= 0:
        if submission.seconds_after_class_due > 0:
            return (f"{duration_text(submission.seconds_after_class_due)} after the class's "
                    f"due date, {given}: on time")
        return f"{given}: on time" if given else "on time"
    words = f"late {duration_text(submission.seconds_late)}"
    if given:
        words += f" after the {given}"
    if submission.late_days_left is not None:
        day_word = "day" if submission.late_days_used == 1 else "days"
        words += (f": {submission.late_days_used} late {day_word} used, "
                  f"{submission.late_days_left} left,")
    else:
        words += ":"
    return f"{words} {penalty_text(submission)}"


def deadlines(grades: AssignmentGrades) -> list[tuple[str, str]]:
    """[(student, deadline_text)] of one assignment: every student with an extension or who
    handed in late."""
    rows = []
    for student in sorted(set(grades.extensions) | set(grades.submissions)):
        submission = grades.submissions.get(student)
        extension = grades.extensions.get(student)
        if extension is None and (submission is None or submission.seconds_late <= 0):
            continue
        rows.append((student, deadline_text(submission, extension, grades.class_due)))
    return rows


def attention(people: dict[str, Person], grades: AssignmentGrades,
              records: list[StudentResult]) -> list[tuple[str, str]]:
    """[(student, reason)] of one assignment: missing, unreadable, failed, late, not graded."""
    by_student = {r.student: r for r in records}
    needs = []
    for student in sorted(set(people) | set(by_student) | set(grades.submissions)):
        record = by_student.get(student)
        submission = grades.submissions.get(student)
        if record is None and submission is None:
            needs.append((student, "missing: nothing submitted"))
            continue
        if record is not None:
            # a student the grader failed on has a note and no notebooks; a refused one
            # has its reason on each notebook, below
            if not record.notebooks and record.notes:
                needs.append((student, "; ".join(record.notes)))  # each says "not graded: ..."
            for result in record.notebooks:
                state = notebook_state(result)
                if state != "graded":
                    why = f" ({result.message})" if result.message else ""
                    needs.append((student, f"{result.notebook} {state}{why}"))
        if submission is not None and submission.seconds_late > 0:
            penalty = (f", late penalty {number(submission.penalty)} points"
                       if submission.penalty else "")
            needs.append((student, late_text(submission.seconds_late) + penalty))
    return [(s, one_line(r)) for s, r in needs]


def summarise(settings: Settings, assignment: str, people: dict[str, Person] | None = None,
              grades: AssignmentGrades | None = None) -> str:
    """summary.txt's part for one assignment."""
    if grades is None:
        people, [grades] = read_grades(settings, [assignment])
    records = load_records(settings, assignment)
    by_student = {r.student: r for r in records}
    students = sorted(set(by_student) | set(grades.submissions))
    due = f", due {grades.class_due:%Y-%m-%d %H:%M:%S} UTC" if grades.class_due else ""
    lines = [f"# {assignment}: {len(students)} submission(s), {number(grades.max_score)} "
             f"points{due}", "", "student\tnotebook\tstate\tscore"]
    notebooks = sorted({c.notebook for c in grades.checks})
    for student in students:
        record = by_student.get(student)
        submission = grades.submissions.get(student)
        results = {r.notebook: r for r in record.notebooks} if record else {}
        for notebook in notebooks:
            result = results.get(notebook)
            total = sum(c.max_points for c in grades.checks if c.notebook == notebook)
            if submission is not None:
                score = submission.notebook_scores.get(notebook, 0.0)
            else:
                score = sum(t.points for t in result.tests) if result else 0.0
            state = notebook_state(result) if result else "not graded"
            detail = f" ({one_line(result.message)})" if result and result.message else ""
            lines.append(f"{spreadsheet_cell(student)}\t{notebook}\t{state}\t"
                         f"{number(score)}/{number(total)}"
                         f"{detail}")
    lines += ["", "student\ttotal (as in grades.csv)"]
    for student in students:
        submission = grades.submissions.get(student)
        score = submission.score if submission else 0.0
        late = ""
        if submission is not None and submission.penalty:
            late = (f" ({number(submission.raw_score)} less a late penalty of "
                    f"{number(submission.penalty)})")
        lines.append(f"{spreadsheet_cell(student)}\t"
                     f"{number(score)}/{number(grades.max_score)}{late}")
    due_rows = deadlines(grades)
    lines += ["", f"late or with an extension: {len(due_rows)}"]
    lines += [f"{spreadsheet_cell(student)}\t{words}" for student, words in due_rows]
    lines += ["", "check\tpoints\tpassed\tmean points"]
    for stats in check_statistics(grades, students):
        lines.append(f"{stats['notebook']}/{stats['grade_id']}\t{number(stats['max_points'])}\t"
                     f"{stats['passed']}/{stats['seen']} ({stats['pass_rate']:.0%})\t"
                     f"{stats['mean']:.2f}")
    needs = attention(people, grades, records)
    lines += ["", f"needs attention: {len(needs)}"]
    lines += [f"{spreadsheet_cell(student)}\t{reason}" for student, reason in needs]
    return "\n".join(lines) + "\n"


def check_statistics(grades: AssignmentGrades, students: list[str]) -> list[dict[str, Any]]:
    """Per check, in notebook order: points, how many passed (full points) and the mean points,
    over `students` (a student without a gradebook entry counts 0)."""
    stats = []
    for check in grades.checks:
        points = [grades.submissions[s].points.get((check.notebook, check.grade_id)) or 0.0
                  if s in grades.submissions else 0.0 for s in students]
        passed = sum(1 for p in points if check.max_points and p >= check.max_points)
        stats.append({"notebook": check.notebook, "grade_id": check.grade_id,
                      "max_points": check.max_points, "passed": passed, "seen": len(points),
                      "pass_rate": passed / len(points) if points else 0.0,
                      "mean": sum(points) / len(points) if points else 0.0})
    return stats


def summary_text(settings: Settings, assignments: list[str],
                 people: dict[str, Person] | None = None,
                 grades: list[AssignmentGrades] | None = None) -> str:
    """summary.txt for `assignments` (write_summary writes it)."""
    if grades is None:
        people, grades = read_grades(settings, assignments)
    return "\n".join(summarise(settings, g.name, people, g) for g in grades)


def write_summary(settings: Settings, assignments: list[str],
                  people: dict[str, Person] | None = None,
                  grades: list[AssignmentGrades] | None = None) -> str:
    """reports/summary.txt for `assignments`; returns its text."""
    text = summary_text(settings, assignments, people, grades)
    write_atomically(os.path.join(settings.reports, "summary.txt"), text)
    return text
