"""The grade report: each student's part (reports/<assignment>/<student>.json) and the
assignment's report rebuilt from every part (reports/<assignment>.csv and .json).

A student's part is written by the single writer; the assignment's report is
rebuilt from all parts, so it is complete even when graders on several
machines wrote them.
"""

import csv
import io
import json
import os

from ..files import StagedFiles, remove_left_over_files, write_atomically
from ..results import StudentResult
from ..safe_text import CsvValue, spreadsheet_safe, without_controls, writable_record
from ..settings import Settings

REPORT_FIELDS = ["student", "notebook", "notebook_status", "grade_id", "points", "max_points",
                 "status", "message"]


def report_rows(result: StudentResult) -> list[dict[str, CsvValue]]:
    """One row per student, notebook and test cell, plus rows for notes."""
    rows = []
    for note in result.notes:
        rows.append(_row(result, "", "", "", "", "", "note", note))
    for notebook in result.notebooks:
        for note in notebook.notes:
            rows.append(_row(result, notebook.notebook, notebook.status, "", "", "", "note", note))
        for test in notebook.tests:
            rows.append(_row(result, notebook.notebook, notebook.status, test.grade_id,
                             test.points, test.max_points, test.status, test.message))
    return rows


def _row(result, notebook, nb_status, grade_id, points, max_points, status, message):
    return {"student": without_controls(result.student), "notebook": notebook,
            "notebook_status": str(nb_status), "grade_id": grade_id, "points": points,
            "max_points": max_points, "status": str(status), "message": without_controls(message)}


def write_student_report(reports_root: str, assignment: str, result: StudentResult,
                         staged: StagedFiles | None = None) -> None:
    """reports/<assignment>/<student>.json: the part of the report for one student.

    With `staged` (a StagedFiles) the file is only staged; the caller publishes.
    """
    part = writable_record(result.to_json())
    folder = os.path.join(reports_root, assignment)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, _safe_name(part["student"]) + ".json")
    text = json.dumps(part, indent=1, ensure_ascii=False, sort_keys=True)
    if staged is None:
        write_atomically(target, text)
    else:
        staged.write(target, text)


def read_student_parts(reports_root: str, assignment: str) -> list[StudentResult]:
    """Every student's part of an assignment's report (reports/<assignment>/*.json), by student,
    as StudentResult."""
    folder = os.path.join(reports_root, assignment)
    records = []
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    records.append(StudentResult.from_json(json.load(handle)))
    return sorted(records, key=lambda r: r.student)


def rebuild_assignment_reports(settings: Settings, assignments: list[str]) -> None:
    """reports/<assignment>.csv and .json of each of `assignments` that has student parts,
    rebuilt: complete even if graders on several machines wrote the parts."""
    for name in assignments:
        if os.path.isdir(os.path.join(settings.reports, name)):
            write_assignment_report(settings.reports, name)


def write_assignment_report(reports_root: str, assignment: str) -> list[StudentResult]:
    """reports/<assignment>.csv and .json rebuilt from every student's part."""
    records = read_student_parts(reports_root, assignment)
    rows = [row for record in records for row in report_rows(record)]
    write_atomically(os.path.join(reports_root, assignment + ".json"),
                  json.dumps({"assignment": assignment, "rows": rows}, indent=1,
                             ensure_ascii=False))
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, REPORT_FIELDS)
    writer.writeheader()
    writer.writerows({key: spreadsheet_safe(value) for key, value in row.items()} for row in rows)
    write_atomically(os.path.join(reports_root, assignment + ".csv"), text.getvalue())
    return records


def _safe_name(student):
    return "".join(c if c.isalnum() or c in "-_." else f"%{ord(c):x}" for c in student)


def remove_assignment_leftovers(reports_root: str, autograded_root: str, assignment: str) -> int:
    """What killed writers left in every folder the writer writes for `assignment`,
    removed (files.remove_left_over_files); returns how many."""
    removed = remove_left_over_files(reports_root) + remove_left_over_files(
        os.path.join(reports_root, assignment))
    if os.path.isdir(autograded_root):
        for student in os.listdir(autograded_root):
            removed += remove_left_over_files(os.path.join(autograded_root, student, assignment))
    return removed
