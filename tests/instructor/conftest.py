"""What the instructor's tests share: one rehearsal of a whole class, graded once.

`python -m grader rehearse` (what `make rehearse` runs) on the parameters
assignment with four students: alice correct, bob partial, carol untouched,
dave correct but late. It releases, collects, grades in the sandbox, writes
and releases feedback and exports the grades with the course's own settings;
the rehearsal's tests and the feedback page's tests read what it wrote.
"""

import os
import subprocess
import sys

import pytest

from testsupport.course import ROOT

@pytest.fixture(scope="session")
def rehearsal(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("rehearsal") / "class")
    run = subprocess.run([sys.executable, "-m", "grader", "rehearse", "--students", "4",
                          "--assignment", "parameters", "--folder", folder], cwd=ROOT,
                         capture_output=True, text=True)
    return {"folder": folder, "run": run,
            "course_data": os.path.join(folder, "course", "course-data")}
