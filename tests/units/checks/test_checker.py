"""How the checker (grader.checks.checker) runs a test with the kernel's answers: the
student's exceptions, timeouts, the package's own functions, what is sent by name and by
value, and the set-up that reads the student's id.

The kernel is a stand-in (FakeKernel): no sandbox is started.
"""


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
                return storage_from_bytes(ref[1], ref[2])
            return ref

    import io

    from grader.sandbox.inside.encoding import storage_from_bytes

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
