"""What the rehearsals share: a fresh copy of the course, the fake students' names and
answers, and running one step."""

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import time

KINDS = ["correct", "partial", "untouched", "late"]
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
         "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter"]
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
COURSE_FILES = ["nbgrader_config.py", "solutions", "exercises"]
# what a course's nbgrader_config.py may read a gradebook's URL from (this course's
# GPTCOURSE_DB_URL): a rehearsal's commands run without them, so that its copy of the
# course grades into a gradebook of its own
GRADEBOOK_VARIABLES = "*_DB_URL"


class RehearsalError(Exception):
    pass


def course_copy(repository: str, folder: str) -> str:
    """A fresh `folder` (what was there removed) with the course's files of `repository` in
    folder/course/, and no gradebook URL from the environment (`GRADEBOOK_VARIABLES`: a
    gradebook of its own); returns the course's folder."""
    for name in [n for n in os.environ if fnmatch.fnmatchcase(n, GRADEBOOK_VARIABLES)]:
        del os.environ[name]
    if os.path.exists(folder):
        shutil.rmtree(folder)
    course_dir = os.path.join(folder, "course")
    os.makedirs(course_dir)
    for name in COURSE_FILES:
        source = os.path.join(repository, name)
        (shutil.copytree if os.path.isdir(source) else shutil.copy)(
            source, os.path.join(course_dir, name))
    return course_dir


def answered_copy(course_dir: str, assignment: str, mine: str, kind: str) -> list[str]:
    """The released notebooks of `assignment` copied into the student's folder `mine` and
    answered as a student of `kind` would; returns their paths."""
    shutil.copytree(os.path.join(course_dir, "exercises", assignment), mine)
    paths = []
    for notebook in sorted(n for n in os.listdir(mine) if n.endswith(".ipynb")):
        paths.append(os.path.join(mine, notebook))
        write_answers(paths[-1], answers(
            os.path.join(course_dir, "solutions", assignment, notebook), kind))
    return paths


def student_names(count: int) -> list[str]:
    names = NAMES[:count]
    return names + [f"student{i + 1:02d}" for i in range(len(names), count)]


def environment(home: str | None = None, user: str | None = None) -> dict[str, str]:
    """The environment of one command: the course's .venv first on PATH (nbgrader runs
    alembic), the rehearsal's own gradebook, and for a student their own HOME."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("JUPYTER") and not fnmatch.fnmatchcase(k, GRADEBOOK_VARIABLES)}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    if home:
        env.update(HOME=home, USER=user, LOGNAME=user)
    return env


def run_step(args: list[str], cwd: str, env: dict[str, str],
             what: str) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RehearsalError(f"{what} failed (exit {result.returncode}):\n"
                             f"{(result.stdout + result.stderr)[-4000:]}")
    print(f"  {what} ({time.monotonic() - started:.1f} s)", flush=True)
    return result


def answers(source_notebook: str, kind: str) -> dict[str, str]:
    """{grade_id: source} a student of `kind` writes into the answer cells."""
    with open(source_notebook, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    solutions = {}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            lines = "".join(cell["source"]).splitlines(keepends=True)
            solutions[meta["grade_id"]] = "".join(l for l in lines if l.strip() not in MARKERS)
    if kind == "untouched":
        return {}
    if kind == "partial":  # the first half of the answers
        return dict(list(solutions.items())[:max(1, len(solutions) // 2)])
    return solutions


def write_answers(path: str, given: dict[str, str]) -> None:
    with open(path, encoding="utf-8") as handle:
        nb = json.load(handle)
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in given:
            cell["source"] = given[grade_id]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(nb, handle, indent=1)
