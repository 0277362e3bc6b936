"""The single writer: gradebook rows, autograded notebooks and the grade report.

Workers only compute; this module is the one place that writes. Each
student's grades are recorded in one database transaction, so a run that is
interrupted (Ctrl-C, kill) leaves every student either fully recorded or as
before, and running again overwrites cleanly.
"""

import csv
import io
import json
import os
import socket
import tempfile
import time

import nbformat
from nbgrader.api import Comment, Grade, Gradebook, MissingEntry, Student, SubmittedAssignment, \
    SubmittedNotebook
from nbgrader.utils import parse_utc

from .notebooks import clean_text, without_controls

STALE_SECONDS = 600  # a temporary file this old was left by a writer that was killed
REPORT_FIELDS = ["student", "notebook", "notebook_status", "grade_id", "points", "max_points",
                 "status", "message"]


def read_timestamp(submitted_dir):
    """The submission time from nbgrader's timestamp.txt, or (None, note) if unusable."""
    path = os.path.join(submitted_dir, "timestamp.txt")
    if not os.path.isfile(path) or os.path.islink(path):
        return None, None
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(200).strip()
        return (parse_utc(text), None) if text else (None, None)
    except (ValueError, OSError, OverflowError, UnicodeDecodeError):
        return None, "timestamp.txt could not be read; the submission time is unknown"


def record_in_gradebook(db_url, course_id, record, timestamp, late_penalties=None):
    """Write one student's auto scores in one transaction, as nbgrader's autograde would.

    `late_penalties` is nbgrader's AssignLatePenalties built with the course's
    settings (Settings.late_penalties); a submission after the due date gets, per
    notebook, the penalty its plugin gives, exactly as stock nbgrader assigns it.
    Without it nbgrader's default applies (no penalty).
    """
    if late_penalties is None:
        from nbgrader.preprocessors import AssignLatePenalties

        late_penalties = AssignLatePenalties()
        late_penalties.init_plugin()
    with Gradebook(db_url, course_id) as gb:
        db = gb.db
        try:
            if db.query(Student).filter(Student.id == record["student"]).one_or_none() is None:
                db.add(Student(id=record["student"]))
                db.flush()
            assignment = gb.find_assignment(record["assignment"])
            submission = (db.query(SubmittedAssignment)
                          .filter(SubmittedAssignment.assignment == assignment,
                                  SubmittedAssignment.student_id == record["student"])
                          .one_or_none())
            if submission is None:
                submission = SubmittedAssignment(assignment=assignment,
                                                 student=db.get(Student, record["student"]))
                db.add(submission)
                db.flush()
            submission.timestamp = timestamp
            _complete_structure(db, assignment, submission)
            results = {nb["notebook"]: nb for nb in record["notebooks"]}
            for notebook in assignment.notebooks:
                submitted = _submitted_notebook(db, notebook, submission)
                names = {c.id: c.name for c in list(notebook.grade_cells) + list(notebook.task_cells)}
                result = results.get(notebook.name)
                scores = {t["grade_id"]: t["points"] for t in (result or {}).get("tests", [])}
                graded = bool(result) and result["status"] == "graded"
                for grade in db.query(Grade).filter(Grade.notebook_id == submitted.id):
                    name = names.get(grade.cell_id)
                    if name in scores:
                        grade.auto_score = float(scores[name])
                    else:  # a manually graded answer or task: a person grades it
                        grade.auto_score = None if graded else 0.0
                    grade.needs_manual_grade = (grade.manual_score is not None
                                                or grade.auto_score is None)
                db.flush()
                db.refresh(submitted)  # its score, a column computed from the grades
                _assign_late_penalty(late_penalties, submission, submitted)
            db.commit()
        except BaseException:
            db.rollback()
            raise


def _assign_late_penalty(late_penalties, submission, notebook):
    """What nbgrader's AssignLatePenalties.preprocess does for one submitted notebook."""
    notebook.late_submission_penalty = None
    seconds_late = submission.total_seconds_late
    if seconds_late > 0:
        penalty = late_penalties.plugin_inst.late_submission_penalty(
            submission.student_id, notebook.score, seconds_late)
        if penalty is not None:
            notebook.late_submission_penalty = late_penalties._check_late_penalty(notebook,
                                                                                  penalty)


def _submitted_notebook(db, notebook, submission):
    return (db.query(SubmittedNotebook)
            .filter(SubmittedNotebook.notebook_id == notebook.id,
                    SubmittedNotebook.assignment_id == submission.id)
            .one_or_none())


def _complete_structure(db, assignment, submission):
    """The rows nbgrader's add_submission creates (a notebook, grades and comments), if missing."""
    for notebook in assignment.notebooks:
        submitted = _submitted_notebook(db, notebook, submission)
        if submitted is None:
            submitted = SubmittedNotebook(notebook_id=notebook.id, assignment_id=submission.id)
            db.add(submitted)
            db.flush()
        grades = {g.cell_id for g in db.query(Grade).filter(Grade.notebook_id == submitted.id)}
        comments = {c.cell_id for c in db.query(Comment).filter(Comment.notebook_id == submitted.id)}
        for cell in list(notebook.grade_cells) + list(notebook.task_cells):
            if cell.id not in grades:
                db.add(Grade(cell_id=cell.id, notebook_id=submitted.id))
        for cell in list(notebook.solution_cells) + list(notebook.task_cells):
            if cell.id not in comments:
                db.add(Comment(cell_id=cell.id, notebook_id=submitted.id))
        db.flush()


class StagedFiles:
    """Files written to temporary names beside their targets, put in place together.

    The writer stages a student's autograded notebooks and report, commits the
    gradebook, then publishes: a failure before the commit discards the
    temporary files, so an error never leaves a temporary file behind. What
    a killed writer leaves is removed by the next run (remove_leftovers).
    """

    def __init__(self):
        self.pending = []  # (temporary path, target path)
        self.removals = []

    def write(self, path, text):
        self.pending.append((_write_temporary(path, text), path))

    def remove(self, path):
        self.removals.append(path)

    def publish(self):
        for temporary, target in self.pending:
            os.replace(temporary, target)
        for path in self.removals:
            if os.path.lexists(path):
                os.remove(path)
        self.pending, self.removals = [], []

    def discard(self):
        for temporary, _ in self.pending:
            try:
                os.remove(temporary)
            except OSError:
                pass
        self.pending, self.removals = [], []


def clean_record(value):
    """`value` with every string writable as UTF-8 (lone surrogates escaped), recursively."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_record(k): clean_record(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_record(v) for v in value]
    return value


def write_autograded(autograded_root, student, assignment, record, submitted_dir, staged=None):
    """Autograded notebooks (and the timestamp) into autograded/<student>/<assignment>/.

    With `staged` (a StagedFiles) the files are only staged; the caller publishes.
    """
    own = staged is None
    staged = StagedFiles() if own else staged
    record = clean_record(record)
    folder = os.path.join(autograded_root, student, assignment)
    os.makedirs(folder, exist_ok=True)
    try:
        for result in record["notebooks"]:
            target = os.path.join(folder, result["notebook"] + ".ipynb")
            if result.get("autograded") is None:
                staged.remove(target)
                continue
            nb = nbformat.from_dict(result["autograded"])
            staged.write(target, nbformat.writes(nb))
        stamp = os.path.join(submitted_dir, "timestamp.txt") if submitted_dir else None
        if stamp is None:  # no usable submission folder: no timestamp either
            staged.remove(os.path.join(folder, "timestamp.txt"))
        elif os.path.isfile(stamp) and not os.path.islink(stamp):
            with open(stamp, encoding="utf-8", errors="replace") as handle:
                staged.write(os.path.join(folder, "timestamp.txt"), handle.read(200))
        # nbgrader's release_feedback needs the submission's secret beside the feedback
        secret = os.path.join(submitted_dir, "submission_secret.txt") if submitted_dir else None
        if secret and os.path.isfile(secret) and not os.path.islink(secret):
            with open(secret, encoding="utf-8", errors="replace") as handle:
                staged.write(os.path.join(folder, "submission_secret.txt"), handle.read(200))
    except BaseException:
        staged.discard()
        raise
    if own:
        staged.publish()


def report_rows(record):
    """One row per student, notebook and test cell, plus rows for notes."""
    rows = []
    for note in record.get("notes", []):
        rows.append(_row(record, "", "", "", "", "", "note", note))
    for result in record["notebooks"]:
        for note in result["notes"]:
            rows.append(_row(record, result["notebook"], result["status"], "", "", "", "note", note))
        for test in result["tests"]:
            rows.append(_row(record, result["notebook"], result["status"], test["grade_id"],
                             test["points"], test["max_points"], test["status"], test["message"]))
    return rows


def _row(record, notebook, nb_status, grade_id, points, max_points, status, message):
    return {"student": without_controls(record["student"]), "notebook": notebook,
            "notebook_status": nb_status, "grade_id": grade_id, "points": points,
            "max_points": max_points, "status": status, "message": without_controls(message)}


def spreadsheet_safe(value):
    """A CSV cell that no spreadsheet reads as a formula: '=1+2' becomes \"'=1+2\"."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def write_student_report(reports_root, assignment, record, staged=None):
    """reports/<assignment>/<student>.json: the part of the report for one student.

    With `staged` (a StagedFiles) the file is only staged; the caller publishes.
    """
    record = clean_record(record)
    folder = os.path.join(reports_root, assignment)
    os.makedirs(folder, exist_ok=True)
    slim = {"student": record["student"], "assignment": assignment, "notes": record["notes"],
            "notebooks": [{k: v for k, v in nb.items() if k != "autograded"}
                          for nb in record["notebooks"]]}
    target = os.path.join(folder, _safe_name(record["student"]) + ".json")
    text = json.dumps(slim, indent=1, ensure_ascii=False, sort_keys=True)
    if staged is None:
        _atomic_write(target, text)
    else:
        staged.write(target, text)


def read_student_parts(reports_root, assignment):
    """Every student's part of an assignment's report (reports/<assignment>/*.json), by student."""
    folder = os.path.join(reports_root, assignment)
    records = []
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    records.append(json.load(handle))
    return sorted(records, key=lambda r: r["student"])


def write_assignment_report(reports_root, assignment):
    """reports/<assignment>.csv and .json rebuilt from every student's part."""
    records = read_student_parts(reports_root, assignment)
    rows = [row for record in records for row in report_rows(record)]
    _atomic_write(os.path.join(reports_root, assignment + ".json"),
                  json.dumps({"assignment": assignment, "rows": rows}, indent=1,
                             ensure_ascii=False))
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, REPORT_FIELDS)
    writer.writeheader()
    writer.writerows({key: spreadsheet_safe(value) for key, value in row.items()} for row in rows)
    _atomic_write(os.path.join(reports_root, assignment + ".csv"), text.getvalue())
    return records


def _safe_name(student):
    return "".join(c if c.isalnum() or c in "-_." else f"%{ord(c):x}" for c in student)


def writer_tag():
    """This process as '<host>-<pid>': a leftover temporary names the writer that left it."""
    host = "".join(c if c.isalnum() else "_" for c in socket.gethostname()) or "host"
    return f"{host}-{os.getpid()}"


def _writer_is_gone(tag):
    """True when `tag` (see writer_tag) names a process of this host that no longer runs."""
    host, _, pid = tag.rpartition("-")
    if host != writer_tag().rpartition("-")[0] or not pid.isdigit():
        return False  # another machine's writer, or an older name: only its age tells
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, under another user
        return False
    return False


def remove_leftovers(folder, prefix="."):
    """Removes temporaries in `folder` left by a killed writer; returns how many.

    A temporary is '.<target>.<host>-<pid>.<random>.tmp'. One whose writer ran
    on this machine and is gone is removed at once; any other only once it is
    STALE_SECONDS old, since a grader on another machine may still be writing it.
    """
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        path = os.path.join(folder, name)
        tag = name[:-len(".tmp")].rpartition(".")[0].rpartition(".")[2]
        try:
            if _writer_is_gone(tag) or time.time() - os.lstat(path).st_mtime > STALE_SECONDS:
                os.remove(path)
                removed += 1
        except OSError:
            pass
    return removed


def remove_assignment_leftovers(reports_root, autograded_root, assignment):
    """remove_leftovers over every folder the writer writes for `assignment`."""
    removed = remove_leftovers(reports_root) + remove_leftovers(
        os.path.join(reports_root, assignment))
    if os.path.isdir(autograded_root):
        for student in os.listdir(autograded_root):
            removed += remove_leftovers(os.path.join(autograded_root, student, assignment))
    return removed


def _write_temporary(path, text):
    """`text` written to a new temporary file beside `path` (removed again if writing fails).

    The temporary's name starts with '.' and the target's name and names the
    writing process, so what a killed writer left is recognised and removed
    (see remove_leftovers).
    """
    folder, name = os.path.split(path)
    prefix = f".{name}."
    remove_leftovers(folder, prefix)
    handle = tempfile.NamedTemporaryFile("wb", delete=False, dir=folder,
                                         prefix=f"{prefix}{writer_tag()}.", suffix=".tmp")
    try:
        with handle:
            handle.write(clean_text(text).encode("utf-8"))
        umask = os.umask(0)  # the usual permissions, not a temporary's 0600: the course
        os.umask(umask)  # team reads the reports
        os.chmod(handle.name, 0o666 & ~umask)
    except BaseException:
        os.remove(handle.name)
        raise
    return handle.name


def _atomic_write(path, text):
    temporary = _write_temporary(path, text)
    try:
        os.replace(temporary, path)
    except BaseException:
        os.remove(temporary)
        raise


__all__ = ["MissingEntry", "StagedFiles", "clean_record", "record_in_gradebook",
           "remove_assignment_leftovers", "remove_leftovers", "writer_tag",
           "write_autograded", "write_assignment_report", "write_student_report",
           "read_timestamp"]
