"""Defend-your-answer sheets (make defense-questions, docs/explain-questions.md).

For each student one printable page: two of the rubric's `defense` questions, filled with
the student's own values, and a line of their own submitted code to explain, each with
what to expect (for the line, the course's solution of the same answer cell beside it).
Which questions and which line are chosen by the digest of the student's id, so the sheet
is the same each time it is written and differs from a neighbour's.
"""

import hashlib
import html
import os

from ..cells import nbgrader_meta, source_text
from ..files import write_atomically
from ..plan import Unreadable, read_submission
from ..rubric import filled
from ..safe_text import shown_on_page
from ..settings import CourseError, Settings
from .answers import ExplainCell, explain_cell, student_values

SOLUTION = ("### BEGIN SOLUTION", "### END SOLUTION")
SHOWN_LINE_CHARS = 300  # of the student's line on a sheet: a printed page holds a few lines
STYLE = """body { font-family: Georgia, serif; margin: 2rem auto; max-width: 42rem; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin-top: 1.4rem; }
pre { background: #f4f4f4; padding: 0.5rem; white-space: pre-wrap; font-size: 0.85rem; }
.expected { border-left: 3px solid #888; padding-left: 0.6rem; color: #333; }
@page { size: A4; margin: 1.5cm; }
@media print { body { margin: 0; max-width: none; } .sheet { page-break-after: always; } }"""


def _pick(student: str, what: str, count: int) -> int:
    digest = hashlib.sha256(f"{student}\0{what}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count if count else 0


def _answer_cells(path: str) -> dict[str, str]:
    """{grade_id: source} of the code answer cells of the notebook at `path` ({} when it
    cannot be read: plan.read_submission)."""
    try:
        cells = read_submission(path)["cells"]
    except (OSError, Unreadable):
        return {}
    return {nbgrader_meta(c)["grade_id"]: source_text(c.get("source"))
            for c in cells if c.get("cell_type") == "code"
            and nbgrader_meta(c).get("solution") and not nbgrader_meta(c).get("grade")
            and isinstance(nbgrader_meta(c).get("grade_id"), str)}


def _solution_part(source: str) -> str:
    lines, inside = [], False
    for line in source.split("\n"):
        if SOLUTION[0] in line:
            inside = True
        elif SOLUTION[1] in line:
            inside = False
        elif inside or not line.lstrip().startswith("###"):
            lines.append(line)
    return "\n".join(lines).strip("\n")


def shown_line(line: str) -> str:
    """A student's line of code as the sheet prints it: its first SHOWN_LINE_CHARS characters."""
    return line if len(line) <= SHOWN_LINE_CHARS else line[:SHOWN_LINE_CHARS] + " …"


def code_question(settings: Settings, cell: ExplainCell, student: str) -> tuple[str, str, str]:
    """(answer cell, the student's line, the course's solution of that cell) for `student`:
    a line of code of their own, chosen by their id; ('', '', '') when they wrote none."""
    submitted = os.path.join(settings.submitted, student, cell.assignment,
                             cell.notebook + ".ipynb")
    theirs = _answer_cells(submitted)
    instructor = {}
    for path in settings.instructor_notebooks(cell.assignment).values():
        instructor.update({k: v for k, v in _answer_cells(path).items()})
    candidates = []
    for grade_id, source in theirs.items():
        for line in source.split("\n"):
            text = line.strip()
            if (len(text) > 12 and not text.startswith(("#", '"""', "'''", "def ", "print("))
                    and text != "raise NotImplementedError()"):
                candidates.append((grade_id, line.rstrip()))
    if not candidates:
        return "", "", ""
    grade_id, line = candidates[_pick(student, "line", len(candidates))]
    return grade_id, line, _solution_part(instructor.get(grade_id, ""))


def sheet_html(settings: Settings, cell: ExplainCell, student: str) -> str:
    """One student's sheet: two questions on their own values and one on their own code."""
    values = student_values(settings, cell.rubric, student)
    questions = list(cell.rubric.defense)
    first = _pick(student, "questions", len(questions))
    chosen = [questions[(first + k) % len(questions)] for k in range(min(2, len(questions)))]
    parts = [f"<section class=\"sheet\"><h1>{html.escape(cell.assignment)}: defend your "
             f"answers — {shown_on_page(student)}</h1>",
             "<p>Five minutes. Ask each question; the student answers in their own words. "
             "The expected answers are the student's own values.</p>"]
    for number, (question, answer) in enumerate(chosen, start=1):
        parts += [f"<h2>{number}. {html.escape(' '.join(filled(question, values).split()))}</h2>",
                  f"<p class=\"expected\">Expected: "
                  f"{html.escape(' '.join(filled(answer, values).split()))}</p>"]
    grade_id, line, solution = code_question(settings, cell, student)
    number = len(chosen) + 1
    if line:
        parts += [f"<h2>{number}. This line is from your answer <code>{shown_on_page(grade_id)}"
                  f"</code>: what does it do, and what would go wrong without it?</h2>",
                  f"<pre>{shown_on_page(shown_line(line))}</pre>",
                  "<p class=\"expected\">Expected: the line's part in the answer. The "
                  "course's solution of the same cell, for comparison:</p>",
                  f"<pre>{html.escape(solution)}</pre>"]
    else:
        parts.append(f"<h2>{number}. The student handed in no code of their own: ask them to "
                     f"write the first answer of the notebook on paper.</h2>")
    parts.append("</section>")
    return "\n".join(parts)


def write_defense_sheets(settings: Settings, assignment: str,
                         students: list[str] | None = None) -> list[str]:
    """One page per student under reports/defense-<assignment>/ (<student>.html), and all
    of them in one file to print (all.html); returns the lines to print."""
    cell = explain_cell(settings, assignment)
    if not cell.rubric.defense:
        raise CourseError(f"{cell.rubric.path} has no defense questions (the key defense: "
                          f"a list of question and answer)")
    folder = os.path.join(settings.submitted)
    handed_in = sorted(d for d in (os.listdir(folder) if os.path.isdir(folder) else [])
                       if os.path.isfile(os.path.join(folder, d, assignment,
                                                      cell.notebook + ".ipynb")))
    unknown = sorted(set(students or []) - set(handed_in))
    if unknown:
        raise CourseError(f"no {assignment} notebook in submitted/ of: {', '.join(unknown)}")
    chosen = [s for s in handed_in if not students or s in students]
    out = os.path.join(settings.reports, f"defense-{assignment}")
    os.makedirs(out, exist_ok=True)
    sheets = []
    head = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(assignment)}: defend your answers</title><style>{STYLE}</style>"
            f"</head><body>\n")
    for student in chosen:
        sheet = sheet_html(settings, cell, student)
        sheets.append(sheet)
        write_atomically(os.path.join(out, f"{student}.html"), head + sheet + "\n</body></html>\n")
    write_atomically(os.path.join(out, "all.html"), head + "\n".join(sheets) + "\n</body></html>\n")
    return [f"{len(chosen)} sheet(s) in {os.path.relpath(out, settings.root)}/ (all.html: "
            f"every sheet, one printed page each)"]
