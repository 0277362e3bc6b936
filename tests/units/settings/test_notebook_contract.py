"""Every notebook of solutions/ keeps the contract of docs/adding-an-assignment.md
(testsupport/notebook_contract.py), and each rule of it catches the notebook that breaks it,
naming the cell and the rule."""

import copy
import json
import re
import shutil

import nbformat
import pytest

from testsupport.course import ROOT, assignments, notebook_file
from testsupport.notebook_contract import RULES, contract_problems, read_as_written


@pytest.fixture(scope="module")
def grader_limits():
    """(seconds per cell, seconds per notebook) as the grader reads them from the course."""
    from grader.settings import check_config, limits_from_config

    config, _ = check_config(ROOT)
    limits = limits_from_config(config)
    return limits.timeout, limits.notebook_seconds


@pytest.mark.parametrize("assignment", sorted(assignments()))
def test_every_notebook_of_solutions_keeps_the_contract(assignment, grader_limits):
    problems = contract_problems(notebook_file("solutions", assignment), grader_limits)
    assert problems == [], "\n".join(map(str, problems))


def test_every_notebooks_install_cell_is_the_courses_but_for_the_line_release_writes():
    def install(assignment):
        nb = nbformat.read(notebook_file("solutions", assignment), as_version=4)
        source = next(c.source for c in nb.cells if c.cell_type == "code")
        return re.sub(r"^COURSE_PACKAGE = .*?(  #)", r"COURSE_PACKAGE = ...\1", source,
                      flags=re.MULTILINE)

    assert len({install(assignment) for assignment in assignments()}) == 1


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _edit(grade_id, old, new):
    """The cell `grade_id` with its text `old` written `new` (which must be there)."""
    def change(nb):
        cell = _cell(nb, grade_id)
        assert old in cell.source, (grade_id, old)
        cell.source = cell.source.replace(old, new, 1)
    return change


def _meta(cell, **values):
    """The nbgrader metadata of the cell `cell` (a grade_id) given these values."""
    def change(nb):
        _cell(nb, cell).metadata["nbgrader"].update(values)
    return change


def _cell_type(grade_id, kind):
    def change(nb):
        cell = _cell(nb, grade_id)
        cell.cell_type = kind
        cell.update(outputs=[], execution_count=None)
    return change


def _kernel(nb):
    nb.metadata["kernelspec"]["name"] = "ir"


def _same_id_twice(nb):
    nb.cells[1]["id"] = nb.cells[0]["id"]


def _no_grade_id(nb):
    del _cell(nb, "outro").metadata["nbgrader"]["grade_id"]


# (what the instructor wrote, the rule it breaks, the cell named, the change to parameters.ipynb)
BROKEN = [
    ("another kernel", "kernel", "-", _kernel),
    ("a cell id twice", "cell ids", "-", _same_id_twice),
    ("a markdown cell without a grade_id", "nbgrader cells", "'number 38'", _no_grade_id),
    ("the worth of the assignment wrong", "intro", "'intro'",
     _edit("intro", "is worth 12 points: 10 for the checks", "is worth 10 points: 10 for the checks")),
    ("time limits the grader does not give", "intro", "'intro'",
     _edit("intro", "whole notebook\nthree minutes", "whole notebook\nfive minutes")),
    ("no install line", "install", "'install'",
     _edit("install", "COURSE_PACKAGE = None", "PACKAGE = None")),
    ("a set-up cell students may edit", "setup", "'setup'", _meta("setup", locked=False)),
    ("the package imported as a module", "imports", "'output_shape'",
     _edit("output_shape", "import torch\n", "import torch\nimport gptcourse\n")),
    ("a name from a module of the package", "imports", "'setup'",
     _edit("setup", "from gptcourse import GPT2_CONFIGS,",
           "from gptcourse.counting import count_parameters\nfrom gptcourse import GPT2_CONFIGS,")),
    ("a function students write imported", "imports", "'setup'",
     _edit("setup", "tie_weights\n", "tie_weights, model_size_mib\n")),
    ("the student's model made from the typed id only", "student's own", "'own-model'",
     _edit("own-model", 'os.environ.get("JUPYTERHUB_USER") or STUDENT_ID', "STUDENT_ID")),
    ("an instructor's command in a cell", "no instructor words", "'setup'",
     _edit("setup", "import torch\n", "import torch  # after make release\n")),
    ("an answer without its solution markers", "answer cells", "'values_answer'",
     _edit("values_answer", "### BEGIN SOLUTION\n", "")),
    ("an answer cell named as nbgrader names it", "answer cells", "'cell-2f1c'",
     _meta("values_answer", grade_id="cell-2f1c")),
    ("a package function's section that does not say so", "package functions",
     "'count_parameters_answer'",
     _edit("count-parameters-intro", "earns nothing", "is not allowed")),
    ("a test cell named as nbgrader names it", "test cells", "'cell-938593c4'",
     _meta("output_shape", grade_id="cell-938593c4")),
    ("a test cell without its docstring", "docstring", "'output_shape'",
     _edit("output_shape", '"""Check that output_shape', '"""output_shape')),
    ("a test cell without hidden tests", "hidden tests", "'gpt2_totals_values'",
     _edit("gpt2_totals_values", "### BEGIN HIDDEN TESTS", "# the tests")),
    ("a test cell ending in an expression", "ends in a statement", "'output_shape'",
     _edit("output_shape", "### END HIDDEN TESTS", "### END HIDDEN TESTS\nanswer_shape")),
    ("a message Validate cuts", "messages fit", "'output_shape'",
     _edit("output_shape", '"the first dimension is the batch: one row per text, 2 texts"',
           '"the first dimension is the batch, which holds one row per text: here 2 texts"')),
    ("an assertion inside a with block", "no assert in a block", "'output_shape'",
     _edit("output_shape", "answer_shape = tuple(output_shape)\n",
           "with torch.no_grad():\n    answer_shape = tuple(output_shape)\n"
           "    assert answer_shape\n")),
    ("an explain cell students cannot edit", "explain cell", "'explain_tying'",
     _meta("explain_tying", locked=True)),
    ("an explain cell that is code", "explain cell", "'explain_tying'",
     _cell_type("explain_tying", "code")),
    ("points that add up to 10.5", "points", "'output-shape-intro'",
     _meta("output_shape", points=1)),
]


@pytest.fixture(scope="module")
def parameters():
    """solutions/parameters/parameters.ipynb, which keeps the contract, as its file holds it."""
    return read_as_written(notebook_file("solutions", "parameters"))


def test_the_guide_states_every_rule_and_every_field_of_a_row():
    import dataclasses

    from testsupport.assignment_row import AssignmentRow

    with open(f"{ROOT}/docs/adding-an-assignment.md", encoding="utf-8") as handle:
        guide = handle.read()
    assert [rule for rule in RULES if f"*{rule}*" not in guide] == []
    assert [f.name for f in dataclasses.fields(AssignmentRow) if f"`{f.name}`" not in guide] == []


def test_every_rule_has_a_broken_notebook():
    assert sorted({rule for _, rule, _, _ in BROKEN}) == sorted(RULES)


@pytest.mark.parametrize(("what", "rule", "cell", "change"), BROKEN,
                         ids=[what for what, *_ in BROKEN])
def test_a_broken_rule_is_named_with_its_cell(what, rule, cell, change, grader_limits,
                                              parameters, tmp_path):
    nb = copy.deepcopy(parameters)
    change(nb)
    path = tmp_path / "solutions" / "parameters" / "parameters.ipynb"
    path.parent.mkdir(parents=True)
    shutil.copytree(f"{ROOT}/rubrics", tmp_path / "rubrics")
    path.write_text(json.dumps(nb), encoding="utf-8")  # as it is: nbformat would mend the ids
    problems = contract_problems(str(path), grader_limits)
    assert {p.rule for p in problems} == {rule}, "\n".join(map(str, problems))
    assert cell in {p.cell for p in problems}, "\n".join(map(str, problems))
    assert str(problems[0]).startswith(f"solutions/parameters/parameters.ipynb, cell ")
    assert f"{rule} ({RULES[rule]})" in str(problems[0])
