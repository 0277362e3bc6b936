"""Build submissions for the assignments and grade a batch of them.

A submission is made from the committed student notebook (``exercises/``): every
answer cell gets the instructor's solution (the code between the solution
markers of ``solutions/``), and any answer cell can be replaced by other code to
model a student who wrote it differently or wrongly. ``grade_batch`` grades a
batch with the course's own grader (``python -m grader autograde``, as `make
autograde` does); ``grade_batch_with_stock_nbgrader`` grades it with stock
nbgrader, as a second check.
"""

import json
import subprocess
import sys
from pathlib import Path

import nbformat

from testsupport.course import ROOT, assignments, nbgrader_env, solution_answers
from testsupport.gradebook import gradebook_scores, sqlite_url
from testsupport.hand_in import hand_in

REPO = Path(ROOT)
NOTEBOOKS = {name: notebook + ".ipynb" for name, notebook in assignments().items()}
STOCK_STUDENT = "stock-nbgrader"  # the one student id stock nbgrader's kernels are given


def nbgrader(course_dir, *args, **environment):
    """Run an nbgrader command in ``course_dir``; return the finished process (stdout and stderr merged).

    The Jupyter configuration directory is an empty one, so a user's own nbgrader
    settings cannot leak in; assignments are graded side by side, so one torch
    thread per kernel keeps the kernels from fighting over a small machine's cores.
    ``environment`` adds variables.
    """
    env = nbgrader_env(JUPYTER_CONFIG_DIR=str(Path(course_dir) / ".jupyter-config"),
                       OMP_NUM_THREADS="1", **environment)
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def notebook_path(course_dir, folder, assignment, student=None):
    """Where nbgrader keeps the assignment's notebook in ``folder`` (per student if given)."""
    parts = [folder, student, assignment, NOTEBOOKS[assignment]]
    return Path(course_dir).joinpath(*[part for part in parts if part is not None])


def build_submission(assignment, answers=None, fill_solutions=True):
    """The student notebook with its answer cells filled in.

    Every answer cell gets the instructor's solution if ``fill_solutions`` is true,
    then ``answers`` ({grade_id: source}) replaces the cells it names. An unknown
    grade_id is an error, so a renamed cell cannot silently leave a test vacuous.
    """
    nb = nbformat.read(REPO / "exercises" / assignment / NOTEBOOKS[assignment], as_version=4)
    sources = dict(solution_answers(assignment)) if fill_solutions else {}
    answers = answers or {}
    answer_ids = {cell.metadata["nbgrader"]["grade_id"] for cell in nb.cells
                  if cell.metadata.get("nbgrader", {}).get("solution")}
    unknown = set(answers) - answer_ids
    if unknown:
        raise KeyError(f"{assignment} has no answer cell {sorted(unknown)}; its answer cells: {sorted(answer_ids)}")
    sources.update(answers)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in sources and cell.metadata["nbgrader"].get("solution"):
            cell.source = sources[grade_id]
    return nb


def _hand_in(course_dir, assignment, submissions):
    """Writes ``submissions`` ({student: notebook}) where nbgrader collects them."""
    for student, nb in submissions.items():
        hand_in(str(course_dir), student, assignment, {NOTEBOOKS[assignment]: nb},
                timestamp=None)


def grade_batch(course_dir, assignment, submissions, jobs=2):
    """Grades ``submissions`` ({student: notebook}) of ``assignment`` with the course's grader,
    in a released course (testsupport.course.released_course).

    Returns ({student: {grade_id: score}} from the gradebook, {student: {grade_id:
    message}} of every check that did not pass, from the grader's report).
    """
    _hand_in(course_dir, assignment, submissions)
    env = nbgrader_env(JUPYTER_CONFIG_DIR=str(Path(course_dir) / ".jupyter-config"))
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", assignment,
                           "--jobs", str(jobs)], cwd=course_dir, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"grader autograde failed ({done.returncode}):\n{done.stdout[-5000:]}")
    scores = gradebook_scores(sqlite_url(str(course_dir)), assignment, "gptcourse")
    report = Path(course_dir) / "course-data" / "reports" / (assignment + ".json")
    messages = {student: {} for student in submissions}
    for row in json.loads(report.read_text(encoding="utf-8"))["rows"]:
        if row["grade_id"] and row["status"] not in ("passed", "note"):
            messages[row["student"]][row["grade_id"]] = row["message"]
    return {student: scores[student] for student in submissions}, messages


def grade_batch_with_stock_nbgrader(course_dir, assignment, submissions):
    """Grades ``submissions`` with stock `nbgrader autograde`, in a released course; returns
    {student: {grade_id: score}}.

    The course's nbgrader_config.py switches nbgrader's own autograde off (the
    course grades in its sandbox), so this switches it back on for the run. Stock
    nbgrader tells a notebook no student id: every notebook runs as STOCK_STUDENT's
    (the hub's variable), so computed values match its checks and typed-in ones do
    not, as in the course's grader, where each runs as its own student's.
    """
    _hand_in(course_dir, assignment, submissions)
    stock = "--Autograde.exporter_class=nbconvert.exporters.NotebookExporter"
    done = nbgrader(course_dir, "autograde", assignment, "--force", stock,
                    JUPYTERHUB_USER=STOCK_STUDENT)
    if done.returncode != 0:
        raise RuntimeError(f"nbgrader autograde failed ({done.returncode}):\n{done.stdout[-5000:]}")
    scores = gradebook_scores(sqlite_url(str(course_dir)), assignment, "gptcourse")
    return {student: scores[student] for student in submissions}


def stock_failure_messages(course_dir, assignment, student):
    """{grade_id: 'ErrorName: message'} of the test cells that failed in stock nbgrader's autograded notebook."""
    nb = nbformat.read(notebook_path(course_dir, "course-data/autograded", assignment, student), as_version=4)
    messages = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade"):
            continue
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                messages[meta["grade_id"]] = f"{output.ename}: {output.evalue}"
    return messages
