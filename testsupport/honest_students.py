"""Honest notebooks in many ordinary styles, for the course's assignments.

Each style is how some student really works in Jupyter: an imports cell at the
top, helpers in cells of their own, `display()` and magics, every function in
one cell, a helper module beside the notebook, notes between cells, an old
notebook format, ... Every one earns full marks when run top to bottom in
Jupyter, so the grader must give each exactly its full marks. A style starts
from the released notebook with the instructor's solutions filled in and then
changes what that student would change (testsupport/notebook_changes.py).
The styles below are every assignment's; each row of the registry
(testsupport/assignments/) adds its own, and says how a Colab student changes it.
`tests/submissions/test_honest_students.py` grades them all in one run.
"""

from testsupport.assignments import ASSIGNMENTS
from testsupport.notebook_changes import (Style, at_top, code, grade_id, insert_after,
                                          markdown, position, solved)

__all__ = ["CASES", "STYLES", "code", "colab_notebook", "colab_student", "grade_id",
           "markdown", "position", "solved"]

STYLES = [
    # every assignment's
    *[Style(f"{a}-as-written", a, []) for a in ASSIGNMENTS],
    *[Style(f"{a}-imports-cell-at-top", a, [at_top(code(
        "import math\nimport numpy as np\nimport torch\nfrom gptcourse import GPTModel"))])
      for a in ASSIGNMENTS],
    *[Style(f"{a}-imports-cell-after-setup", a, [insert_after("setup", code(
        "import collections\nimport functools\nimport numpy as np"))]) for a in ASSIGNMENTS],
    *[Style(f"{a}-autoreload-and-inline-plots", a, [at_top(code(
        "%load_ext autoreload\n%autoreload 2\n%matplotlib inline"))]) for a in ASSIGNMENTS],
    *[Style(f"{a}-notes-between-cells", a, [
        at_top(markdown("My notes: run the set-up cell first.")),
        insert_after("setup", markdown("*The model is untied here.*")),
        lambda nb: nb["cells"].append(markdown("Done! Questions for office hours: none."))])
      for a in ASSIGNMENTS],
    *[Style(f"{a}-saved-with-outputs", a, [lambda nb: [
        cell.update(outputs=[{"output_type": "stream", "name": "stdout", "text": "ran\n"}],
                    execution_count=number)
        for number, cell in enumerate(nb["cells"], 1) if cell["cell_type"] == "code"]])
      for a in ASSIGNMENTS],
    *[Style(f"{a}-old-notebook-format", a, [], old_format=True) for a in ASSIGNMENTS],
    *[Style(f"{a}-scratch-cells-after-the-checks", a, [lambda nb: nb["cells"].extend([
        code("print('all checks above ran')"), code("x = [i * i for i in range(10)]\nx[-1]"),
        code("!echo done")])]) for a in ASSIGNMENTS],
    # each assignment's own
    *[style for row in ASSIGNMENTS.values() for style in row.styles],
]

CASES = {style.name: style for style in STYLES}


def colab_notebook(assignment, student):
    """The solved notebook of `assignment` changed as `student` works in Colab (the row's
    colab_changes), its nbgrader metadata still in it."""
    nb = solved(assignment)
    for change in ASSIGNMENTS[assignment].colab_changes(student):
        change(nb)
    return nb


def colab_student(assignment, student):
    """The notebook `student` saves from Colab for `assignment`: `colab_notebook`'s cells
    pasted into a fresh Colab notebook, without nbgrader's metadata."""
    from testsupport.editors import colab_saved

    return colab_saved(colab_notebook(assignment, student))
