"""Build submissions for the two assignments and grade a batch of them with nbgrader.

A submission is made from the committed student notebook (``exercises/``): every
answer cell gets the instructor's solution (the code between the solution
markers of ``solutions/``), and any answer cell can be replaced by other code to
model a student who wrote it differently or wrongly. Grading goes through one
function, ``grade_batch``, so the tests do not depend on how grading is done.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
COURSE_FILES = ("nbgrader_config.py", "solutions", "exercises")
NOTEBOOKS = {"parameters": "parameters.ipynb", "logits-to-text": "logits_to_text.ipynb"}
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def make_course(directory):
    """Copy the course (configuration, solutions, exercises) into ``directory``; return its path."""
    course = Path(directory)
    course.mkdir(parents=True, exist_ok=True)
    for name in COURSE_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, course / name)
        else:
            shutil.copy2(source, course / name)
    return course


def nbgrader(course_dir, *args):
    """Run an nbgrader command in ``course_dir``; return the finished process (stdout and stderr merged).

    The environment's ``bin`` goes first on PATH (nbgrader runs ``alembic`` from
    there to create the gradebook) and the Jupyter configuration directory is
    an empty one, so a user's own nbgrader settings cannot leak in.
    """
    course_dir = Path(course_dir)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["JUPYTER_CONFIG_DIR"] = str(course_dir / ".jupyter-config")
    env.pop("GPTCOURSE_DB_URL", None)  # the course copy keeps its own SQLite gradebook
    # Assignments are graded side by side: one torch thread per kernel keeps the
    # kernels from fighting over a small machine's cores.
    env["OMP_NUM_THREADS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def notebook_path(course_dir, folder, assignment, student=None):
    """Where nbgrader keeps the assignment's notebook in ``folder`` (per student if given)."""
    parts = [folder, student, assignment, NOTEBOOKS[assignment]]
    return Path(course_dir).joinpath(*[part for part in parts if part is not None])


def solution_sources(assignment):
    """The instructor's answer for each answer cell: {grade_id: source without the solution markers}."""
    nb = nbformat.read(REPO / "solutions" / assignment / NOTEBOOKS[assignment], as_version=4)
    answers = {}
    for cell in nb.cells:
        nbgrader_meta = cell.metadata.get("nbgrader", {})
        if nbgrader_meta.get("solution"):
            lines = [line for line in cell.source.split("\n")
                     if not any(marker in line for marker in SOLUTION_MARKERS)]
            answers[nbgrader_meta["grade_id"]] = "\n".join(lines)
    return answers


def build_submission(assignment, answers=None, fill_solutions=True):
    """The student notebook with its answer cells filled in.

    Every answer cell gets the instructor's solution if ``fill_solutions`` is true,
    then ``answers`` ({grade_id: source}) replaces the cells it names. An unknown
    grade_id is an error, so a renamed cell cannot silently leave a test vacuous.
    """
    nb = nbformat.read(REPO / "exercises" / assignment / NOTEBOOKS[assignment], as_version=4)
    sources = dict(solution_sources(assignment)) if fill_solutions else {}
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


def grade_batch(course_dir, assignment, submissions):
    """Autograde ``submissions`` ({student: notebook}) of ``assignment``; return {student: {grade_id: score}}.

    The submissions are written where nbgrader collects them, the assignment is
    generated (which records its test cells in the gradebook), every student is
    autograded in one run, and the per-cell scores are read from the gradebook.
    """
    from nbgrader.api import Gradebook

    for student, nb in submissions.items():
        path = notebook_path(course_dir, "course-data/submitted", assignment, student)
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
    # stock nbgrader on purpose, a second check beside the course's grader: the course's
    # nbgrader_config.py switches nbgrader's own autograde off, so the test switches it on
    stock = "--Autograde.exporter_class=nbconvert.exporters.NotebookExporter"
    for args in (("generate_assignment", assignment, "--force"),
                 ("autograde", assignment, "--force", stock)):
        done = nbgrader(course_dir, *args)
        if done.returncode != 0:
            raise RuntimeError(f"nbgrader {' '.join(args)} failed ({done.returncode}):\n{done.stdout[-5000:]}")
    db_url = "sqlite:///" + str(Path(course_dir) / "course-data" / "gradebook.db")
    scores = {}
    with Gradebook(db_url, "gptcourse") as gradebook:
        for student in submissions:
            graded = gradebook.find_submission_notebook(Path(NOTEBOOKS[assignment]).stem, assignment, student)
            scores[student] = {grade.name: grade.score for grade in graded.grades}
    return scores


def failure_messages(course_dir, assignment, student):
    """{grade_id: 'ErrorName: message'} of the test cells that failed in the autograded notebook."""
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
