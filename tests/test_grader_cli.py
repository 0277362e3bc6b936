"""Does `python -m grader` tell the instructor's mistakes (exit 2) from students' (exit 0)?

Also unit checks of the pieces that need no sandbox: reading broken files,
building the notebook to run from the instructor's copy, how answers travel
from the kernel to the checker, the feedback preprocessor and the
one-transaction gradebook writer.
"""

import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from testsupport import tiny_course as fx
from grader.feedback import HideTestCode
from grader.notebooks import Unreadable, build_plan, read_submission, released_source
from grader.sandbox import death_reason, Limits


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return fx.make_course(str(tmp_path_factory.mktemp("cli") / "course"))


def grader(*args, cwd):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd,
                          env=fx.nbgrader_env(), capture_output=True, text=True, timeout=120)


def test_an_unknown_assignment_is_the_instructors_error(course):
    result = grader("autograde", "no-such-assignment", cwd=course)
    assert result.returncode == 2
    assert "unknown assignment 'no-such-assignment'" in result.stderr


def test_a_folder_without_nbgrader_config_is_the_instructors_error(tmp_path):
    result = grader("autograde", "tiny", cwd=str(tmp_path))
    assert result.returncode == 2
    assert "no nbgrader_config.py" in result.stderr


def test_an_assignment_not_released_into_the_gradebook_is_the_instructors_error(course, tmp_path):
    other = str(tmp_path / "course")
    shutil.copytree(os.path.join(course, "source"), os.path.join(other, "source"))
    shutil.copy(os.path.join(course, "nbgrader_config.py"), other)
    os.makedirs(os.path.join(other, "course-data"))
    result = grader("autograde", "tiny", cwd=other)
    assert result.returncode == 2
    assert "not in the gradebook" in result.stderr and "make release" in result.stderr


def test_a_broken_config_is_the_instructors_error(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Execute.timeout = (\n")
    result = grader("autograde", "tiny", cwd=str(tmp_path))
    assert result.returncode == 2
    assert "nbgrader_config.py, line 2: " in result.stderr


def test_the_sandbox_limits_come_from_the_config_with_sandboxgraders_defaults(tmp_path, capsys):
    from nbgrader.preprocessors import Execute

    from grader.__main__ import main
    from grader.course import SandboxGrader, load

    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n"
                                                 "c.SandboxGrader.tmpfs_mib = 5\n")
    limits = load(str(tmp_path)).limits
    # what is set comes from the file; the cell limit is nbgrader's own c.Execute.timeout
    assert limits.tmpfs_mib == 5 and limits.timeout == Execute().timeout
    # the rest, in Limits and in the command's help alike, is SandboxGrader's default
    defaults = SandboxGrader()
    assert (limits.memory_mib, limits.file_mib, limits.max_processes) == (
        defaults.memory_mib, defaults.file_mib, defaults.max_processes)
    assert Limits(timeout=1).tmpfs_mib == defaults.tmpfs_mib
    with pytest.raises(SystemExit):
        main(["autograde", "--help"])
    text = capsys.readouterr().out
    for name in SandboxGrader.class_traits(config=True):
        assert f"c.SandboxGrader.{name} = {getattr(defaults, name)!r}:" in text, name


def test_a_bad_shard_is_refused(course):
    result = grader("autograde", "tiny", "--shard", "3/2", cwd=course)
    assert result.returncode == 2
    assert "K must be between 1 and N" in result.stderr


def test_no_submissions_is_not_an_error(course):
    result = grader("autograde", "tiny", cwd=course)
    assert result.returncode == 0, result.stderr
    assert "0 submission(s)" in result.stderr


@pytest.mark.parametrize("content, words", [
    (b"", "empty file"),
    (b"   \n", "empty file"),
    (b"{\"cells\": [", "truncated"),
    (b"not json at all", "not JSON"),
    (b"<html><body>a page</body></html>", "HTML, not a notebook"),
    (b"[1, 2, 3]", "no cells"),
    (b"{\"cells\": 5}", "no cells"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
])
def test_unreadable_files_are_named_in_plain_words(tmp_path, content, words):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(content)
    with pytest.raises(Unreadable, match=words):
        read_submission(str(path))
    assert path.read_bytes() == content


def test_a_symbolic_link_is_never_followed(tmp_path):
    target = tmp_path / "secret.ipynb"
    target.write_text(json.dumps({"cells": []}))
    link = tmp_path / "nb.ipynb"
    link.symlink_to(target)
    with pytest.raises(Unreadable, match="symbolic link"):
        read_submission(str(link))


def test_the_run_takes_only_answers_from_the_student():
    instructor = fx.instructor_notebook()
    submission = json.loads(nbformat.writes(instructor))
    for cell in submission["cells"]:
        meta = cell["metadata"]["nbgrader"]
        if meta["grade_id"] == "double_answer":
            cell["source"] = "def double(x):\n    return 'mine'\n"
        elif meta.get("grade"):
            cell["source"] = "pass  # my own test"
        elif meta["grade_id"] == "setup":
            cell["source"] = "import os"
    plan = build_plan(instructor, submission)
    by_id = {c.grade_id: c for c in plan.cells}
    assert by_id["double_answer"].source == "def double(x):\n    return 'mine'\n"
    assert by_id["setup"].source == instructor.cells[1].source
    assert fx.HIDDEN_MARK in by_id["double_hidden"].source
    assert [c.points for c in plan.cells if c.kind == "test"] == [1.0, 2.0, 2.0, 1.0]
    assert sum("was modified and restored" in n for n in plan.notes) == 4


def test_released_source_drops_the_hidden_block():
    source = fx.instructor_notebook().cells[4].source
    assert fx.HIDDEN_MARK not in released_source(source)
    assert released_source(source).startswith('"""Check that double doubles')


def test_feedback_preprocessor_keeps_docstring_and_message_only():
    nb = fx.instructor_notebook()
    cell = nb.cells[4]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="debug 84"),
                    nbformat.v4.new_output("error", ename="AssertionError",
                                           evalue="double gave a wrong value",
                                           traceback=["long", "traceback", fx.HIDDEN_MARK])]
    out, _ = HideTestCode().preprocess_cell(cell, {}, 4)
    assert out.source == '"""Check that double doubles numbers it has not seen"""'
    assert len(out.outputs) == 1
    assert out.outputs[0].traceback == ["AssertionError: double gave a wrong value"]


def test_death_reasons_are_plain_words():
    limits = Limits(timeout=60, memory_mib=1024)
    assert death_reason(-11, limits) == "kernel died (segmentation fault)"
    assert death_reason(128 + 9, limits).startswith("kernel died (killed")
    assert "1024 MiB" in death_reason(-9, limits)
    assert death_reason(0, limits).startswith("kernel exited (exit status 0)")


def test_a_failure_while_recording_leaves_the_gradebook_as_it_was(course):
    from grader.record import record_in_gradebook
    from grader.results import NotebookResult, StudentResult, TestResult

    tests = [TestResult(g, p, p, "passed") for g, p in fx.POINTS.items()]
    tests[-1].points = "not a number"  # fails half way through the student's grades
    record = StudentResult("halfway", "tiny",
                           notebooks=[NotebookResult("tiny", "graded", tests=tests)])
    url = "sqlite:///" + os.path.join(course, "course-data", "gradebook.db")
    with pytest.raises(ValueError):
        record_in_gradebook(url, "tinycourse", record, None)
    assert "halfway" not in fx.gradebook_scores(course)
    tests[-1].points = 1.0
    record_in_gradebook(url, "tinycourse", record, None)
    record_in_gradebook(url, "tinycourse", record, None)  # again: overwritten, not doubled
    assert fx.gradebook_scores(course)["halfway"] == fx.POINTS
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        assert len(gb.find_submission("tiny", "halfway").notebooks[0].grades) == 4


def test_cells_a_student_added_run_where_they_stand_up_to_a_limit():
    from grader.notebooks import MAX_EXTRA_CELLS

    instructor = fx.instructor_notebook()
    submission = json.loads(nbformat.writes(instructor))
    position = next(i for i, c in enumerate(submission["cells"])
                    if c["metadata"]["nbgrader"]["grade_id"] == "ones_answer")
    added = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": f"value_{i} = {i}"}
             for i in range(MAX_EXTRA_CELLS + 5)]
    submission["cells"][position + 1:position + 1] = added
    plan = build_plan(instructor, submission)
    kinds = [(c.kind, c.grade_id) for c in plan.cells]
    start = kinds.index(("solution", "ones_answer")) + 1
    assert kinds[start:start + MAX_EXTRA_CELLS] == [("extra", None)] * MAX_EXTRA_CELLS
    assert kinds[start + MAX_EXTRA_CELLS] == ("test", "ones_values")
    skipped = [n for n in plan.notes if "was not run (at most" in n]
    assert len(skipped) == 5
    assert skipped[0] == (f"cell {position + MAX_EXTRA_CELLS + 2} (added by the student) was not "
                          f"run (at most {MAX_EXTRA_CELLS} added code cells run)")


def roundtrip(value):
    """A value as the kernel encodes it and the checker decodes it."""
    import json

    from grader.checker import decode
    from grader.runner import Encoder

    return decode(json.loads(json.dumps(Encoder().encode(value))))


def test_answers_come_back_as_the_same_plain_types():
    import math

    import numpy
    import torch

    for value in [None, True, 3, -2**70, 2.5, "naïve 東京", [1, [2.0]], (1, "a"), {"k": (1, 2)},
                  {3: [True]}]:
        back = roundtrip(value)
        assert back == value and type(back) is type(value)
    assert math.isnan(roundtrip(float("nan"))) and roundtrip([float("-inf")]) == [float("-inf")]
    size = roundtrip(torch.Size([2, 4]))
    assert type(size) is torch.Size and size == (2, 4)
    for tensor in [torch.tensor([[1, 2]]), torch.ones(3), torch.tensor(True), torch.zeros(0, 5),
                   torch.tensor([1.5, float("inf")], dtype=torch.float64)]:
        back = roundtrip(tensor)
        assert type(back) is torch.Tensor and back.dtype == tensor.dtype
        assert back.shape == tensor.shape and torch.equal(back, tensor)
    array = roundtrip(numpy.arange(6, dtype=numpy.int32).reshape(2, 3))
    assert array.dtype == numpy.int32 and array.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert type(roundtrip(numpy.float64(0.5))) is numpy.float64


def test_lookalike_answers_come_back_as_opaque_objects():
    import torch

    class Int(int):
        def __eq__(self, other):
            return True

    class T(torch.Tensor):
        pass

    for value, name in [(Int(7), "Int"), (torch.zeros(2).as_subclass(T), "T"),
                        (object(), "object"), (torch.nn.Linear(2, 2), "Linear")]:
        back = roundtrip(value)
        assert type(back).__name__ == name
        assert type(back) not in (int, torch.Tensor) and back != 7 and back != back.__class__()


def test_malformed_or_huge_answers_are_refused():
    from grader.checker import decode
    from grader.runner import Encoder, TooLarge

    for data in [{"$type": "torch.Tensor", "dtype": "torch.float32", "shape": [3], "data": [1, 2]},
                 {"$type": "torch.Tensor", "dtype": "os.system", "shape": [], "data": 1},
                 {"$type": "float", "repr": "__import__('os')"}, {"$type": "nope"},
                 {"$type": "torch.Size", "items": [-1]}]:
        with pytest.raises(ValueError):
            decode(data)
    nested = []
    for _ in range(200):
        nested = [nested]
    with pytest.raises(TooLarge, match="nested too deeply"):
        Encoder().encode(nested)
    with pytest.raises(TooLarge, match="too large"):
        Encoder().encode(["x" * (1 << 20)] * 40)


def test_answer_names_are_the_top_level_names_of_the_solution_cells():
    from grader.checker import answer_names

    names = answer_names(["def f(x):\n    inner = 1\n    return x\n",
                          "with open('a') as h:\n    total = 3\nfor name in []:\n    pass\n",
                          "import numpy as np\nclass C:\n    attr = 1\n", "%matplotlib inline\nz = 1"])
    assert names == {"f", "h", "total", "name", "C", "z"}  # imports are not answers


class FakeKernel:
    """Stands in for the sandboxed kernel: answers from a dict, records every request."""

    def __init__(self, answers, calls=None):
        from grader.sandbox import CellOutcome

        self.outcome, self.answers, self.calls = CellOutcome, answers, calls or {}
        self.requests, self.process = [], object()

    def request(self, message, timeout):
        import json

        self.requests.append(message)
        ok = self.outcome("ok")
        if message["op"] == "describe":
            return {"names": {n: {"callable": n in self.calls, "module": "__main__",
                                  "qualname": n} for n in message["names"]
                              if n in self.answers or n in self.calls}}, ok
        if message["op"] == "get":
            return {"value": json.loads(json.dumps(self.answers[message["name"]]))}, ok
        if message["op"] == "end":  # the check is over: the kernel's child that answered goes
            return {"ended": True}, ok
        reply = self.calls[message["name"]]
        if reply == "timeout":
            self.process = None
            return None, self.outcome("timeout", "timed out after 1 seconds")
        return reply, ok

    def kill(self):
        self.process = None


def check(kernel, code, setup=("import torch",), solutions=("def double(x):\n    pass\n",
                                                            "answer = 1\n")):
    import time

    from grader.checker import Checker

    return Checker(list(setup), list(solutions)).check(code, kernel, time.monotonic() + 5, 5)


def test_the_checker_runs_the_test_here_with_the_kernels_answers():
    kernel = FakeKernel({"answer": 42}, {"double": {"value": 4}})
    assert check(kernel, "secret = 7\nassert answer == 42 and double(2) == 4\nprint('ok')") == (
        "passed", "", "ok\n")
    sent = " ".join(str(r) for r in kernel.requests)
    assert "secret" not in sent and "assert" not in sent  # only names and arguments travel
    assert [r["op"] for r in kernel.requests] == ["describe", "get", "call", "end"]
    status, message, _ = check(FakeKernel({"answer": 41}), "assert answer == 42, 'not 42'")
    assert (status, message) == ("failed", "AssertionError: not 42")


def test_a_students_exception_is_a_builtin_one_named_after_the_function():
    kernel = FakeKernel({}, {"double": {"exception": "ValueError", "message": "bad \udce9"}})
    code = "try:\n    double(1)\nexcept ValueError as error:\n    assert 'in double: bad' in str(error)"
    assert check(kernel, code)[0] == "passed"
    kernel = FakeKernel({}, {"double": {"exception": "MyOwnError", "message": "x"}})
    assert check(kernel, "double(1)")[1] == "RuntimeError: in double: x"


def test_a_timeout_fails_the_test_even_if_the_test_catches_everything():
    kernel = FakeKernel({}, {"double": "timeout"})
    code = "try:\n    double(1)\nexcept BaseException:\n    pass"
    assert check(kernel, code)[:2] == ("timeout", "in double: timed out after 5 seconds")


def test_the_course_packages_own_function_earns_nothing():
    kernel = FakeKernel({}, {"count_parameters": {"value": 336}})
    kernel.request_original = kernel.request

    def request(message, timeout):
        reply, outcome = kernel.request_original(message, timeout)
        if message["op"] == "describe":
            reply["names"]["count_parameters"].update(module="gptcourse.counting")
        return reply, outcome

    kernel.request = request
    status, message, _ = check(kernel, "assert count_parameters(None) == 336",
                               solutions=("def count_parameters(model):\n    pass\n",))
    assert status == "failed"
    assert message == "count_parameters is the course package's own function; write your own"


def test_set_up_objects_are_sent_by_name_and_test_objects_by_value():
    import base64
    import pickle

    kernel = FakeKernel({}, {"double": {"value": 0}})
    check(kernel, "double(model, torch.ones(2), tokenizer)",
          setup=("import torch\nfrom gptcourse import GPTModel, get_tokenizer\n"
                 "model = GPTModel({'vocab_size': 10, 'context_length': 4, 'emb_dim': 4,"
                 " 'n_heads': 2, 'n_layers': 1, 'drop_rate': 0.0, 'qkv_bias': False})\n"
                 "tokenizer = get_tokenizer()",))
    data = base64.b64decode(next(r for r in kernel.requests if r["op"] == "call")["args"])
    refs = []

    class Loader(pickle.Unpickler):
        def persistent_load(self, ref):
            refs.append(ref)
            return ref

    import io

    (args, _) = Loader(io.BytesIO(data)).load()
    assert refs == [("setup", "model"), ("setup", "tokenizer")]
    assert args[0] == ("setup", "model") and args[1].tolist() == [1.0, 1.0]


def test_a_notebook_has_a_wall_clock_budget_restarts_included(course, tmp_path):
    from grader.grade import grade_student, read_instructor_notebooks, read_job

    slow = "import time\ntime.sleep(2.5)\n"
    nb = fx.correct(fx.released(course), double_answer=slow + fx.ANSWERS["double_answer"],
                    ones_answer=slow + fx.ANSWERS["ones_answer"],
                    answer_answer=slow + fx.ANSWERS["answer_answer"])
    folder = tmp_path / "submitted" / "slow" / "tiny"
    folder.mkdir(parents=True)
    (folder / "tiny.ipynb").write_text(json.dumps(nb))
    job = read_job("slow", "tiny", str(folder),
                   read_instructor_notebooks({"tiny": os.path.join(course, "source", "tiny",
                                                                   "tiny.ipynb")}),
                   Limits(timeout=3, memory_mib=1536), notebook_timeout=6)
    record = grade_student(job)
    notebook = record.notebooks[0]
    tests = {t.grade_id: t for t in notebook.tests}
    assert tests["double_visible"].status == "passed"
    assert tests["answer_value"].message == "notebook took too long"
    assert tests["answer_value"].points == 0
    assert any(n.startswith("notebook took too long (more than 6 seconds") for n in notebook.notes)
    assert notebook.seconds < 15


def test_a_check_that_defines_a_reference_answer_sends_it_with_its_calls():
    kernel = FakeKernel({}, {"double": {"value": 4}, "quadruple": {"value": 8}})
    code = ("student_double = double\n"
            "def double(x):\n"
            "    '''the reference'''\n"
            "    return x + x\n"
            "try:\n"
            "    assert quadruple(2) == 8\n"
            "finally:\n"
            "    double = student_double\n"
            "assert quadruple(1) == 8\n")
    status, message, _ = check(kernel, code, solutions=("def double(x):\n    pass\n",
                                                        "def quadruple(x):\n    pass\n"))
    assert (status, message) == ("passed", "")
    calls = [r for r in kernel.requests if r["op"] == "call"]
    assert [c["overrides"] for c in calls] == [
        ["def double(x):\n    '''the reference'''\n    return x + x"], []]


def test_the_sandboxed_package_has_stubs_for_the_answers_and_the_rest_unchanged(tmp_path):
    import gptcourse
    from grader.sandbox import sandboxed_package

    copy = sandboxed_package(("count_parameters", "generate_text_simple"), root=str(tmp_path))
    with open(os.path.join(copy, "counting.py"), encoding="utf-8") as handle:
        counting = handle.read()
    assert "p.numel()" not in counting.split("def count_parameters")[1].split("def ")[0]
    assert ("raise RuntimeError('gptcourse.count_parameters is not available while your "
            "homework is graded: write your own count_parameters')") in counting
    with open(os.path.join(os.path.dirname(gptcourse.__file__), "model.py"),
              encoding="utf-8") as handle:
        model = handle.read()
    with open(os.path.join(copy, "model.py"), encoding="utf-8") as handle:
        assert handle.read() == model  # no answer in it: byte for byte the package's
    assert os.path.isfile(os.path.join(copy, "assets", "gpt2.tiktoken"))


def run_in_a_sandbox(tmp_path, code, timeout, memory_mib):
    """The outcome of one cell in a fresh sandboxed kernel; it must run to its end."""
    from grader.sandbox import Kernel, Limits

    work = tmp_path / "work"
    work.mkdir()
    kernel = Kernel(str(work), Limits(timeout=timeout, memory_mib=memory_mib))
    kernel.start(300)
    try:
        outcome = kernel.run_cell("extra", code, timeout)
    finally:
        kernel.kill()
    assert outcome.status == "ok", outcome
    return outcome


CHILDREN_HOARD = """import os, time
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        try:
            block = bytearray(700 << 20)
            block[::4096] = b"x" * len(block[::4096])
            time.sleep(2)
            os._exit(0)
        except BaseException:
            os._exit(1)
    children.append(pid)
statuses = [os.waitpid(pid, 0)[1] for pid in children]
print("children that held 700 MiB at once:", sum(status == 0 for status in statuses))
"""


@pytest.mark.slow
def test_memory_is_limited_for_the_sandbox_as_a_whole(tmp_path):
    """Three children of 700 MiB each stay under a 1536 MiB per-process limit but not together."""
    from grader.sandbox import SandboxCgroups

    assert SandboxCgroups.available()[0], SandboxCgroups.available()[1]
    outcome = run_in_a_sandbox(tmp_path, CHILDREN_HOARD, timeout=60, memory_mib=1536)
    held = int(outcome.stdout.split("children that held 700 MiB at once:")[1].split()[0])
    assert held < 3


FORK_UNTIL_REFUSED = """import os, time
started = 0
try:
    while started < 1000:
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        started += 1
except OSError as error:
    print("refused after", started, "with", type(error).__name__, error.strerror)
"""


@pytest.mark.slow
def test_processes_are_limited_for_the_sandbox_as_a_whole(tmp_path):
    """A fork bomb stops at the sandbox's process limit, with time to spare."""
    outcome = run_in_a_sandbox(tmp_path, FORK_UNTIL_REFUSED, timeout=120, memory_mib=3072)
    words = outcome.stdout.split()
    limit = Limits(timeout=120).max_processes
    assert words[:2] == ["refused", "after"] and int(words[2]) < limit, outcome.stdout
    assert "Resource temporarily unavailable" in outcome.stdout
