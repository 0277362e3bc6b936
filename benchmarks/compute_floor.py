"""The compute floor of grading: the class's own cells and the checks, nothing else.

One warm, unsandboxed IPython shell (torch and the course package imported,
one torch thread and the meta device's lazy imports done, as in a template)
that has run the instructor's shared
set-up cells once, as a template does (``--setup-each`` runs them in every
notebook instead, as stock nbgrader must), its model moved where a fork does
not copy it (inside/setup_tensors.py). For each submission it forks that
shell and runs, in the child, the cells the grader would run: the student's
cells in the student's order with the instructor's set-up and test cells (the
hidden tests included), each once, as nbgrader does, errors allowed. No sandbox,
no channel, no check forks, no autograded notebook, no gradebook.

    .venv/bin/python benchmarks/compute_floor.py COURSE ASSIGNMENT [--setup-each]
        [--instructor solutions]

COURSE is a course folder with ``course-data/submitted/<student>/<ASSIGNMENT>/``
(benchmarks/grading.py and benchmarks/service.py make them) and the instructor's
notebooks in ``<--instructor>/<ASSIGNMENT>/`` (solutions/, this course's nbgrader
source directory, unless told). It prints one JSON line: seconds in all
(from the first fork to the last child's end), per notebook, and the points
each student's checks earned, so that a floor that does not grade like the
grader is seen.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))
RUN = ("setup", "solution", "extra", "test")  # the kinds of cell a notebook's run executes


def plan_of(instructor, path):
    from grader.plan import build_plan, parse_submission, with_metadata_restored

    with open(path, "rb") as handle:
        submission = with_metadata_restored(instructor, parse_submission(handle.read()))
    return build_plan(instructor, submission)


def run_cells(shell, cells):
    """Points earned by the test cells among `cells` (PlanCells), run in order."""
    points = 0.0
    for cell in cells:
        result = shell.run_cell(cell.source, store_history=False, silent=True)
        if cell.kind == "test" and result.success:
            points += cell.points
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("course")
    parser.add_argument("assignment")
    parser.add_argument("--setup-each", action="store_true",
                        help="run the shared set-up cells in every notebook, not once")
    parser.add_argument("--instructor", default="solutions",
                        help="the course's folder of instructor notebooks (solutions)")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"

    import nbformat
    import torch
    from IPython.core.interactiveshell import InteractiveShell

    import gptcourse  # noqa: F401 (warm: imported before the first notebook, as in a template)
    from grader.sandbox.inside.setup_tensors import map_setup_tensors
    from grader.sandbox.inside.template_server import warm_up
    from grader.worker.execution import leading_setup

    torch.set_num_threads(1)
    warm_up()
    solutions = os.path.join(args.course, args.instructor, args.assignment)
    submitted = os.path.join(args.course, "course-data", "submitted")
    shell = InteractiveShell.instance()
    notebooks = sorted(n[:-len(".ipynb")] for n in os.listdir(solutions) if n.endswith(".ipynb"))
    students = sorted(s for s in os.listdir(submitted)
                      if os.path.isdir(os.path.join(submitted, s, args.assignment)))
    seconds, points = 0.0, {}
    for notebook in notebooks:
        instructor = nbformat.read(os.path.join(solutions, notebook + ".ipynb"), as_version=4)
        first = plan_of(instructor, os.path.join(submitted, students[0], args.assignment,
                                                 notebook + ".ipynb"))
        code = [i for i, c in enumerate(first.cells) if c.kind in RUN]
        shared = [] if args.setup_each else leading_setup(first, code)
        run_cells(shell, [first.cells[i] for i in shared])  # once, before the clock starts
        map_setup_tensors(shell.user_ns)  # a fork of this shell copies no model, as a template
        for student in students:
            path = os.path.join(submitted, student, args.assignment, notebook + ".ipynb")
            plan = plan_of(instructor, path)
            code = [i for i, c in enumerate(plan.cells) if c.kind in RUN]
            ran = set() if args.setup_each else set(leading_setup(plan, code))
            cells = [plan.cells[i] for i in code if i not in ran]
            os.environ["JUPYTERHUB_USER"] = student
            read, write = os.pipe()
            started = time.perf_counter()
            child = os.fork()
            if child == 0:
                os.close(read)
                sys.stdout = sys.stderr = open(os.devnull, "w")
                earned = run_cells(shell, cells)
                os.write(write, json.dumps(earned).encode())
                os._exit(0)
            os.close(write)
            with os.fdopen(read, "rb") as reply:
                earned = json.loads(reply.read() or b"0")
            os.waitpid(child, 0)
            seconds += time.perf_counter() - started
            points[student] = points.get(student, 0.0) + earned
    print(json.dumps({"seconds": seconds, "notebooks": len(students) * len(notebooks),
                      "per_notebook": seconds / max(1, len(students) * len(notebooks)),
                      "points": points}))


if __name__ == "__main__":
    main()
