"""How answers travel from the kernel to the checker, and how the checker runs a test.

The kernel is a stand-in (FakeKernel): no sandbox is started.
"""

import pytest


def roundtrip(value):
    """A value as the kernel encodes it and the checker decodes it."""
    import json

    from grader.checks import decode
    from grader.sandbox.runner import Encoder

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
    from grader.checks import decode
    from grader.sandbox.runner import Encoder, TooLarge

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
    from grader.checks import answer_names

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

    from grader.checks import Checker

    checker = Checker(list(setup), list(solutions), "gptcourse")
    return checker.check(code, kernel, time.monotonic() + 5, 5)


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


def test_the_package_function_a_check_only_swaps_for_a_reference_is_not_refused():
    # `from gptcourse import *` in a scratch cell left count_parameters bound to the package
    kernel = FakeKernel({}, {"count_parameters": {"value": 0}, "count_tied": {"value": 296}})
    kernel.request_original = kernel.request

    def request(message, timeout):
        reply, outcome = kernel.request_original(message, timeout)
        if message["op"] == "describe" and "count_parameters" in reply["names"]:
            reply["names"]["count_parameters"].update(module="gptcourse.counting")
        return reply, outcome

    kernel.request = request
    code = ("student_count_parameters = count_parameters\n"
            "def count_parameters(model):\n"
            "    return 336\n"
            "try:\n"
            "    counted = count_tied(None)\n"
            "finally:\n"
            "    count_parameters = student_count_parameters\n"
            "assert counted == 296\n")
    solutions = ("def count_parameters(model):\n    pass\n", "def count_tied(model):\n    pass\n")
    assert check(kernel, code, solutions=solutions) == ("passed", "", "")
    call = next(r for r in kernel.requests if r["op"] == "call")
    assert call["name"] == "count_tied"
    assert call["overrides"] == ["def count_parameters(model):\n    return 336"]
    # a check that calls the package's function itself is refused, whatever it catches
    catching = "try:\n    count_parameters(None)\nexcept BaseException:\n    pass\n"
    assert check(kernel, catching, solutions=solutions)[:2] == (
        "failed", "count_parameters is the course package's own function; write your own")


def test_set_up_objects_are_sent_by_name_and_test_objects_by_value():
    import base64
    import pickle

    import torch

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
            if ref[0] == "storage":  # the test's own tensor: its bytes, not a saved file
                return _storage_from_bytes(ref[1], ref[2])
            return ref

    import io

    from grader.sandbox.runner import _storage_from_bytes

    (args, _) = Loader(io.BytesIO(data)).load()
    assert refs[0] == ("setup", "model") and refs[-1] == ("setup", "tokenizer")
    assert refs[1] == ("storage", "torch.float32", torch.ones(2).numpy().tobytes())
    assert args[0] == ("setup", "model") and args[1].tolist() == [1.0, 1.0]


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


TINY = {"vocab_size": 10, "context_length": 4, "emb_dim": 4, "n_heads": 2, "n_layers": 1,
        "drop_rate": 0.0, "qkv_bias": False}


def called_in_kernel(answer, *args, skip=()):
    """What the kernel reports about a call of `answer` on copies of `args`, as JSON read back."""
    import copy
    import json

    from grader.sandbox.runner import argument_changes, argument_marks

    copies = copy.deepcopy(args)  # the kernel's copies, as the argument pickle makes them
    marks = argument_marks(copies, {}, {id(copies[i]) for i in skip})
    answer(*copies)
    return json.loads(json.dumps(argument_changes(marks)))


def test_a_call_that_ties_the_model_it_was_given_ties_the_checks_own_model():
    from gptcourse import GPTModel, tie_weights

    from grader.checks.values import mirror_changes

    model = GPTModel(TINY)
    changes = called_in_kernel(tie_weights, model)
    assert [c["where"] for c in changes] == [0]
    assert ["tok_emb.weight", "out_head.weight"] in changes[0]["shared"]
    assert changes[0]["values"] == {}  # tying moves no number
    mirror_changes((model,), {}, changes, {})
    assert model.out_head.weight is model.tok_emb.weight
    assert sum(p.numel() for p in model.parameters()) == 296


def test_a_call_that_unties_or_overwrites_is_mirrored_and_one_that_only_reads_is_not():
    import torch
    from gptcourse import GPTModel, tie_weights

    from grader.checks.values import mirror_changes

    def untie(model):
        model.out_head.weight = torch.nn.Parameter(model.out_head.weight.detach() * 2)

    def zero(model, tensor):
        with torch.no_grad():
            model.final_norm.scale.zero_()
        tensor.add_(1)

    def count(model, tensor):
        model.eval()
        return sum(p.numel() for p in model.parameters()) + tensor.sum().item()

    tied = tie_weights(GPTModel(TINY))
    mirror_changes((tied,), {}, called_in_kernel(untie, tied), {})
    assert tied.out_head.weight is not tied.tok_emb.weight
    assert torch.equal(tied.out_head.weight, tied.tok_emb.weight * 2)
    model, tensor = GPTModel(TINY), torch.zeros(3)
    mirror_changes((model, tensor), {}, called_in_kernel(zero, model, tensor), {})
    assert model.final_norm.scale.sum().item() == 0 and tensor.tolist() == [1.0, 1.0, 1.0]
    assert called_in_kernel(count, GPTModel(TINY), torch.ones(2)) == []
    assert called_in_kernel(zero, GPTModel(TINY), torch.ones(2), skip=(0, 1)) == []


def test_a_check_sees_that_an_answer_tied_the_model_it_was_given():
    kernel = FakeKernel({}, {"count_tied": {"value": 296, "changed": [
        {"where": 0, "shared": [["tok_emb.weight", "out_head.weight"]], "values": {}}]}})
    code = ("from gptcourse import GPTModel\n"
            f"example_model = GPTModel({TINY!r})\n"
            "assert count_tied(example_model) == 296\n"
            "assert example_model.out_head.weight is not example_model.tok_emb.weight, (\n"
            "    'count_tied tied the model it was given')\n")
    solutions = ("def count_tied(model):\n    pass\n",)
    assert check(kernel, code, solutions=solutions)[:2] == (
        "failed", "AssertionError: count_tied tied the model it was given")
    # the set-up cells' model, sent by name, is never changed here
    setup = ("from gptcourse import GPTModel\n" f"model = GPTModel({TINY!r})\n",)
    code = ("assert count_tied(model) == 296\n"
            "assert model.out_head.weight is not model.tok_emb.weight\n")
    assert check(kernel, code, setup=setup, solutions=solutions)[0] == "passed"
    kernel.calls["count_tied"]["changed"] = [{"where": 5, "value": 1}]
    assert check(kernel, code, setup=setup, solutions=solutions)[:2] == (
        "failed", "RuntimeError: in count_tied: what it changed in its arguments could not be "
                  "read (a change to an argument that was not sent)")


def test_a_set_up_cell_that_reads_the_student_id_runs_for_each_student_with_their_id(monkeypatch):
    import time

    from grader.checks import Checker

    monkeypatch.setenv("JUPYTERHUB_USER", "the-instructor")  # grading from the hub
    setup = ["STUDENT_ID = 'typed-in'\nshared = []",
             "import os\nwhose = os.environ.get('JUPYTERHUB_USER') or STUDENT_ID\nshared.append(whose)"]
    checker = Checker(setup, ["answer = 1\n"], "gptcourse")
    assert "whose" not in checker.setup  # not in the set-up every student shares
    for student in ("alice", "bob"):
        own = checker.for_student(student)
        assert own.check(f"assert whose == {student!r}", FakeKernel({}), time.monotonic() + 5,
                         5) == ("passed", "", "")
        assert own.setup["shared"] is checker.setup["shared"]  # the shared set-up is not rebuilt
    assert checker.setup["shared"] == ["alice", "bob"]
    assert __import__("os").environ["JUPYTERHUB_USER"] == "the-instructor"  # restored
    plain = Checker(["x = 1"], ["answer = 1\n"], "gptcourse")
    assert plain.for_student("alice") is plain


def test_a_test_cell_is_read_once_for_every_student_and_a_broken_one_fails_each_time():
    import time

    from grader.checks import Checker

    checker = Checker(["import torch"], ["def double(x):\n    pass\n", "answer = 1\n"], "gptcourse")
    code = ("def reference(x):\n    return x + x\n"
            "assert answer == 42 and double(2) == reference(2)")
    for student in ("s1", "s2"):
        kernel = FakeKernel({"answer": 42}, {"double": {"value": 4}})
        assert checker.for_student(student).check(code, kernel, time.monotonic() + 5, 5)[0] == (
            "passed")
    test = checker.tests[code]
    assert list(checker.tests) == [code] and test.compiled() is test.compiled()
    assert test.names >= {"answer", "double", "reference"}
    assert [name for name, _ in test.definitions] == ["reference"]
    broken = "assert answer ==\n"
    for _ in range(2):
        status, message, _ = checker.check(broken, FakeKernel({"answer": 42}),
                                           time.monotonic() + 5, 5)
        assert status == "failed" and message.startswith("SyntaxError")


def test_the_wait_for_the_checks_set_up_is_not_the_students_time():
    import time

    from grader.worker.execution import NotebookExecution

    class SetUpStillRunning:  # a future whose result takes 0.3 s more to come
        def result(self):
            time.sleep(0.3)
            return "the checker"

    execution = NotebookExecution.__new__(NotebookExecution)
    execution._checker, execution.checker_made = None, SetUpStillRunning()
    execution.deadline = before = time.monotonic() + 1
    started = time.monotonic()
    assert execution.checker() == "the checker"
    waited = time.monotonic() - started
    assert 0.3 <= execution.deadline - before <= waited  # the time waited is given back
    assert execution.checker() == "the checker" and execution.deadline - before <= waited
