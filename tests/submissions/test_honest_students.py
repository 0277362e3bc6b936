"""Honest students earn their full marks, whatever ordinary style they write in.

Every notebook of `testsupport/honest_students.py` (at least 25 styles over every
assignment) and the registry's package-wrapper answers are handed in to a copy of
the course and graded in one run per assignment by `python -m grader
autograde`, the command behind `make autograde`.
"""

import json
import os
import subprocess
import sys

import pytest

from testsupport.assignments import ASSIGNMENTS
from testsupport.course import assignments, nbgrader_env, read_notebook, released_course
from testsupport.hand_in import hand_in
from testsupport.editors import colab_saved, vscode_saved
from testsupport.honest_students import CASES, code, colab_student, position, solved
from testsupport.machine_load import scarce_cpu

# Answers that hand in the course package's own function in disguise, each earning nothing
# for the function it wraps, and answers that change the model they are given, each losing
# exactly the check that asserts the model was left as it was: the registry's, by name
WRAPPERS = {name: (row.name, *wrapper) for row in ASSIGNMENTS.values()
            for name, wrapper in row.wrappers.items()}
ARGUMENT_CHANGERS = {name: (row.name, *changer) for row in ASSIGNMENTS.values()
                     for name, changer in row.argument_changers.items()}

# The solved notebooks saved by editors that drop nbgrader's metadata
# (testsupport/editors.py): matched to the release, or not graded for one reason.
FIRST_TRY = code("def count_parameters(model):\n    return 0  # a first try, left in\n")
EDITOR_SAVED = {
    "saved-by-colab": ("parameters", lambda: colab_saved(solved("parameters"))),
    "saved-by-vscode": ("logits-to-text", lambda: vscode_saved(solved("logits-to-text"))),
    "saved-by-colab-two-answers": ("parameters", lambda: colab_saved(
        with_cell_before(solved("parameters"), "count_parameters_answer", FIRST_TRY))),
    # on the release with a model of each student's own (testsupport.honest_students)
    **{f"colab-own-model-{a}": (a, lambda a=a: colab_student(a, f"colab-own-model-{a}"))
       for a in ASSIGNMENTS},
}


def with_cell_before(nb, wanted, cell):
    nb["cells"].insert(position(nb, wanted), cell)
    return nb


TIMESTAMP = "2026-11-20 12:00:00.000000 UTC"


def wrapper_notebook(assignment, source_id, source):
    nb = solved(assignment)
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == source_id:
            cell["source"] = source
    return {ASSIGNMENTS[assignment].file_name: json.dumps(nb).encode()}


def grade_the_corpus(course_dir, preexec_fn=None):
    """Every honest style and wrapper handed in to a released course at `course_dir` and
    graded, one run per assignment (each started with `preexec_fn`):
    {"course", "runs", "records"}."""
    course = released_course(course_dir)
    env = nbgrader_env()
    for name, style in CASES.items():
        hand_in(course, name, style.assignment, style.handed_in(), TIMESTAMP)
    for name, (assignment, answer_id, source) in WRAPPERS.items():
        hand_in(course, name, assignment, wrapper_notebook(assignment, answer_id, source),
                TIMESTAMP)
    for name, (assignment, answer_id, source, _, _) in ARGUMENT_CHANGERS.items():
        hand_in(course, name, assignment, wrapper_notebook(assignment, answer_id, source),
                TIMESTAMP)
    for name, (assignment, saved) in EDITOR_SAVED.items():
        hand_in(course, name, assignment, {assignments()[assignment] + ".ipynb": saved()},
                TIMESTAMP)
    runs = {a: subprocess.run([sys.executable, "-m", "grader", "autograde", a, "--jobs", "2"],
                              cwd=course, env=env, capture_output=True, text=True,
                              preexec_fn=preexec_fn)
            for a in assignments()}
    records = {}
    for assignment in assignments():
        folder = os.path.join(course, "course-data", "reports", assignment)
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                record = json.load(handle)
            records[record["student"]] = record
    return {"course": course, "runs": runs, "records": records}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The corpus graded once, on a busy machine: the grader's two workers and a process
    forking without pause beside them, as other grading would, share one core, a third of
    it each at most. Every score asserted below is one graded under that load, so none
    depends on a quiet machine."""
    with scarce_cpu(share=1.0) as join:
        return grade_the_corpus(str(tmp_path_factory.mktemp("honest") / "course"), join)


def test_the_busy_machine_gives_what_the_test_starts_its_share_of_a_core_and_no_more():
    """scarce_cpu's bound holds whatever else the machine runs: a process spinning in it
    for 2 s of wall time gets at most 0.75 core of it (less when the machine is busier);
    it and the process forking beside it are in the group, and the group ends with it."""
    import time

    from testsupport.machine_load import members

    spin = "import time\nend = time.time() + 2\nwhile time.time() < end:\n    pass\n"
    with scarce_cpu(share=0.75) as join:
        started = time.monotonic()
        spinner = subprocess.Popen([sys.executable, "-c", spin], preexec_fn=join)
        inside = members(join.group)
        _, status, usage = os.wait4(spinner.pid, 0)
        wall = time.monotonic() - started
    assert spinner.pid in inside and len(inside) >= 2  # the forker, and its child of the moment
    assert status == 0
    assert usage.ru_utime + usage.ru_stime <= 0.75 * wall + 0.2
    assert not os.path.exists(join.group)


def max_points(assignment):
    """{grade_id: points} of the assignment's checks (the explain answer, which a person
    grades, is not the grader's to give)."""
    nb = read_notebook("solutions", assignment)
    return {c["metadata"]["nbgrader"]["grade_id"]: float(c["metadata"]["nbgrader"]["points"])
            for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade")
            and not c["metadata"]["nbgrader"].get("solution")}


def scores(record):
    return {t["grade_id"]: t["points"] for nb in record["notebooks"] for t in nb["tests"]}


def test_the_honest_corpus_has_at_least_25_styles_over_every_assignment():
    assert len(CASES) >= 25
    assert {style.assignment for style in CASES.values()} == set(assignments())


def test_every_run_exits_zero(graded):
    for assignment, run in graded["runs"].items():
        assert run.returncode == 0, f"{assignment}:\n{run.stderr[-3000:]}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_honest_style_earns_exactly_its_full_marks(graded, name):
    record = graded["records"][name]
    expected = max_points(CASES[name].assignment)
    got = scores(record)
    failed = {t["grade_id"]: t["message"] for nb in record["notebooks"] for t in nb["tests"]
              if t["status"] != "passed"}
    assert got == expected, f"{name} lost points: {failed}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_cell_of_an_honest_style_ran_without_a_note(graded, name):
    record = graded["records"][name]
    notes = record["notes"] + [n for nb in record["notebooks"] for n in nb["notes"]]
    assert notes == []


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_a_wrapped_course_function_earns_nothing_and_says_write_your_own(graded, name):
    record = graded["records"][name]
    assignment, answer_id, _ = WRAPPERS[name]
    lost = ASSIGNMENTS[assignment].wrapped_checks[answer_id]
    expected = {check: 0.0 if check in lost else points
                for check, points in max_points(assignment).items()}
    assert scores(record) == expected
    messages = [t["message"] for nb in record["notebooks"] for t in nb["tests"]
                if t["grade_id"] in lost]
    assert all("write your own" in message for message in messages), messages


@pytest.mark.parametrize("name", sorted(ARGUMENT_CHANGERS))
def test_an_answer_that_changes_the_model_it_is_given_loses_exactly_that_check(graded, name):
    assignment, _, _, check, words = ARGUMENT_CHANGERS[name]
    record = graded["records"][name]
    expected = {grade_id: 0.0 if grade_id == check else points
                for grade_id, points in max_points(assignment).items()}
    assert scores(record) == expected
    message = next(t["message"] for nb in record["notebooks"] for t in nb["tests"]
                   if t["grade_id"] == check)
    assert words in message, message


@pytest.mark.parametrize("name", ["saved-by-colab", "saved-by-vscode",
                                  *[f"colab-own-model-{a}" for a in ASSIGNMENTS]])
def test_a_notebook_saved_without_nbgrader_metadata_earns_its_marks_and_says_so(graded, name):
    from grader.plan.matching import METADATA_MATCHED

    assignment, _ = EDITOR_SAVED[name]
    record = graded["records"][name]
    assert scores(record) == max_points(assignment)
    assert record["notes"] == [] and [nb["notes"] for nb in record["notebooks"]] == [
        [METADATA_MATCHED]]


def test_a_notebook_without_metadata_that_cannot_be_matched_is_not_graded_for_one_reason(graded):
    record = graded["records"]["saved-by-colab-two-answers"]
    [notebook] = record["notebooks"]
    first = position(solved("parameters"), "count_parameters_answer") + 1  # counted from 1
    reason = ("not graded: its nbgrader metadata is gone (an editor such as Colab drops it) and "
              f"cells {first}, {first + 1} could each be the answer 'count_parameters_answer': "
              "each defines count_parameters between the released cell 'output_shape' (cell "
              f"{first - 2}) and the released cell 'count_parameters_unseen_configs' (cell "
              f"{first + 2}); paste your answers into the answer cells of the released notebook "
              "and hand that in")
    assert notebook["status"] == "unreadable" and notebook["message"] == reason
    assert {t["message"] for t in notebook["tests"]} == {reason}
    assert set(scores(record).values()) == {0.0} and notebook["notes"] == []


def test_the_grader_says_which_limits_and_stubs_are_in_force(graded):
    from grader.sandbox import SandboxCgroups

    whole, how = SandboxCgroups.available()
    assert whole, how  # these course machines offer cgroups: the limits must be whole-sandbox
    printed = graded["runs"]["parameters"].stderr
    assert ("sandbox limits: 60 s per cell; 3072 MiB of memory and 128 processes per sandbox "
            f"in all ({how})") in printed
    stubs = printed.split("(stubs in the sandbox): ")[1].splitlines()[0].split(", ")
    assert {"count_parameters", "count_tied_parameters", "model_size_mib",
            "parameter_breakdown", "parameter_summary", "sample_next_token"} <= set(stubs)
    assert not {"GPTModel", "tie_weights", "get_tokenizer"} & set(stubs)


def expected_scores(name):
    """{grade_id: points} the honest work of corpus member `name` earns."""
    if name in CASES:
        return max_points(CASES[name].assignment)
    assignment, answer_id, _ = WRAPPERS[name]
    lost = ASSIGNMENTS[assignment].wrapped_checks[answer_id]
    return {check: 0.0 if check in lost else points
            for check, points in max_points(assignment).items()}


def test_on_a_busy_machine_every_honest_notebook_earns_exactly_its_points(graded):
    """CPU and fork load beside the grader (as other grading would be: scarce_cpu) changes
    no score:
    no check is lost to a fork the busy machine refused, and none reports the grader failed."""
    for assignment, run in graded["runs"].items():
        assert run.returncode == 0, f"{assignment}:\n{run.stderr[-3000:]}"
    records = graded["records"]
    honest = set(CASES) | set(WRAPPERS)
    assert honest <= set(records)
    lost = {}
    for name in sorted(honest):
        record = records[name]
        if record["status"] != "graded" or scores(record) != expected_scores(name):
            lost[name] = (record["status"], record["notes"],
                          {t["grade_id"]: t["message"] for nb in record["notebooks"]
                           for t in nb["tests"] if t["status"] != "passed"})
    assert lost == {}
