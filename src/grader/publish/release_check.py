"""Whether the released notebooks in exercises/ are the ones to publish.

- `regenerated_differences`: the release folder (exercises/) must be what ``nbgrader
  generate_assignment`` makes of solutions/ now, byte for byte (the check the course's
  tests make): the assignments are generated again in a temporary copy of the course,
  with a gradebook of its own, and compared.
- `install_line_problems`: each released notebook's COURSE_PACKAGE line must be the
  one `make release` writes for the wheel built now (the same bytes, so the same
  sha256) on the site c.CourseSite.url names.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from ..settings import Settings
from ..settings.course_wheel import CourseWheel
from ..settings.release_lines import PACKAGE_LINE, notebook_values, wanted_values

REGENERATE_SECONDS = 600


def released_notebooks_folder(settings: Settings) -> str:
    """Where `make release` writes the students' notebooks: nbgrader's release folder
    (c.CourseDirectory.release_directory; exercises/ here)."""
    from nbgrader.coursedir import CourseDirectory  # imports nbgrader's apps: when needed

    return os.path.join(settings.root,
                        CourseDirectory(config=settings.config).release_directory)


def released_files(folder: str) -> dict[str, bytes]:
    """{path relative to `folder`: bytes} of every file under it, nbgrader's checkpoints out."""
    files = {}
    for base, folders, names in os.walk(folder):
        folders[:] = [f for f in folders if f not in (".ipynb_checkpoints", "__pycache__")]
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                files[os.path.relpath(path, folder)] = handle.read()
    return files


def regenerated_differences(settings: Settings) -> list[str]:
    """One line for each file of exercises/ that is not what solutions/ generates now."""
    release = released_notebooks_folder(settings)
    with tempfile.TemporaryDirectory(prefix="release-check-") as work:
        course = os.path.join(work, "course")
        os.makedirs(course)
        shutil.copy(os.path.join(settings.root, "nbgrader_config.py"), course)
        shutil.copytree(settings.source, os.path.join(course, os.path.basename(settings.source)),
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        env = {k: v for k, v in os.environ.items() if k != "GPTCOURSE_DB_URL"}
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        for assignment in settings.assignments:
            done = subprocess.run(
                [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
                 f"--CourseDirectory.root={course}",
                 f"--CourseDirectory.db_url=sqlite:///{os.path.join(work, 'gradebook.db')}"],
                cwd=course, env=env, capture_output=True, text=True, timeout=REGENERATE_SECONDS)
            if done.returncode != 0:
                return [f"solutions/{assignment} cannot be generated (nbgrader generate_assignment)"
                        f": {(done.stdout + done.stderr).strip()[-2000:]}"]
        fresh = released_files(os.path.join(course, os.path.basename(release)))
    committed = released_files(release)
    lines = []
    for path in sorted(set(fresh) | set(committed)):
        shown = os.path.relpath(os.path.join(release, path), settings.root)
        if path not in committed:
            lines.append(f"{shown} is missing")
        elif path not in fresh:
            lines.append(f"{shown} is not generated from solutions/ (a file left over)")
        elif fresh[path] != committed[path]:
            lines.append(f"{shown} is not what solutions/ generates now")
    return lines


def install_line_problems(settings: Settings, wheel: CourseWheel) -> list[str]:
    """One line for each released notebook whose COURSE_PACKAGE is not the line for `wheel` on
    the site c.CourseSite.url names."""
    wanted = wanted_values(settings, wheel)[PACKAGE_LINE]
    release = released_notebooks_folder(settings)
    lines = []
    for path in sorted(released_files(release)):
        if not path.endswith(".ipynb"):
            continue
        for value in notebook_values(os.path.join(release, path), PACKAGE_LINE):
            if value == wanted:
                continue
            if wanted == "None":
                why = "but c.CourseSite.url is empty"
            elif value == "None":
                why = f"but c.CourseSite.url is set: the line is {wanted}"
            elif value.split("#sha256=")[0] == wanted.split("#sha256=")[0]:
                why = (f"a wheel whose sha256 is not the one built now ({wheel.sha256}): the "
                       f"course package changed since the release")
            else:
                why = f"but the wheel on the site is {wanted}"
            shown = os.path.relpath(os.path.join(release, path), settings.root)
            lines.append(f"{shown}: COURSE_PACKAGE = {value}, {why}")
    return lines
