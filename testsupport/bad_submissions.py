"""Generators of hostile and broken submissions for the `tiny` test assignment.

Each case builds the files one student hands in from the released notebook,
and says what honest work in it earns (points per test cell) and which words
the grade report must use. Student ids are the case names, so a report row
points straight back here. `tiny_course.py` describes the assignment.
"""

import copy
import json
import os
from dataclasses import dataclass

from testsupport.tiny_course import ANSWERS, POINTS, correct, fill, grade_id


@dataclass
class Case:
    """One row of the table: a hostile or odd submission and what it must earn.

    Most rows are the released notebook with the instructor's answers, some answer
    cells replaced (``answers``: {answer cell id: source}); the rest build their
    files themselves (``build``: released notebook JSON -> {file name: bytes | dict}).
    """
    name: str
    earns: dict  # grade_id -> points that the honest work in the submission earns
    reason: str = ""  # words the report must contain for this student ("" : none needed)
    note: str = ""  # words one of the student's notes must contain
    answers: dict = None  # answer cell id -> source, over the instructor's answers
    build: object = None

    def __post_init__(self):
        if (self.answers is None) == (self.build is None):
            raise ValueError(f"{self.name}: give either answers or build")

    def files(self, released):
        """{file name: bytes | notebook dict} this student hands in."""
        if self.answers is not None:
            return _with(released, **self.answers)
        return self.build(released)


def earns(double=True, ones=True, answer=True):
    return {"double_visible": POINTS["double_visible"] * double,
            "double_hidden": POINTS["double_hidden"] * double,
            "ones_values": POINTS["ones_values"] * ones,
            "answer_value": POINTS["answer_value"] * answer}


ALL = earns()
NONE = earns(False, False, False)


def nb_file(nb):
    return {"tiny.ipynb": nb}


def _raw(nb):
    return json.dumps(nb, indent=1).encode()


def _tests(nb):
    return [c for c in nb["cells"] if grade_id(c) in POINTS]


def _edit_tests(nb, edit):
    nb = copy.deepcopy(nb)
    for cell in _tests(nb):
        edit(cell)
    return nb


def _set_source(text):
    def edit(cell):
        cell["source"] = text
    return edit


def _to_markdown(cell):
    cell["cell_type"] = "markdown"
    cell.pop("outputs", None)
    cell.pop("execution_count", None)


def _points_100(cell):
    cell["metadata"]["nbgrader"]["points"] = 100


def _garble(cell):
    cell["metadata"]["nbgrader"] = "garbage"


def _rename_ids(nb):
    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader")
        if meta and meta.get("grade_id") in POINTS:
            meta["grade_id"] = meta["grade_id"] + "_mine"
    return nb


def _move_tests_up(nb):
    nb = copy.deepcopy(nb)
    tests = _tests(nb)
    rest = [c for c in nb["cells"] if c not in tests]
    nb["cells"] = rest[:2] + tests + rest[2:]
    return nb


def _duplicate_answer(nb):
    nb = fill(nb, ANSWERS)
    cells = nb["cells"]
    index = next(i for i, c in enumerate(cells) if grade_id(c) == "double_answer")
    wrong = copy.deepcopy(cells[index])
    wrong["source"] = "def double(x):\n    return 0\n"
    cells.insert(index, wrong)  # the wrong copy first: as in Jupyter, the later one stands
    return nb


def _ids(nb, how):
    nb = copy.deepcopy(nb)
    for number, cell in enumerate(nb["cells"]):
        if how == "none":
            cell.pop("id", None)
        elif how == "null":
            cell["id"] = None
        elif how == "duplicate":
            cell["id"] = "same-id"
        elif how == "fresh":
            cell["id"] = f"cell-{number}"
    nb["nbformat_minor"] = {"none": 4, "null": 5, "duplicate": 5, "fresh": 5, "old": 0}[how]
    if how == "old":
        for cell in nb["cells"]:
            cell.pop("id", None)
    return nb


def _huge_outputs(nb):
    nb = fill(nb, ANSWERS)
    for cell in nb["cells"]:
        if grade_id(cell) == "answer_answer":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout",
                                "text": "x" * (40 << 20)}]
            cell["execution_count"] = 1
    return nb


def _non_ascii(nb):
    return fill(nb, {
        "double_answer": "def double(x):\n    # Verdoppeln: ümlaut, 日本語, emoji 🤖\n"
                         "    return 2 * x\n",
        "ones_answer": "def ones(n):\n    texte = 'données'\n    return torch.ones(n)\n",
        "answer_answer": "réponse = 'quarante-deux ✓'\nanswer = 42\n",
    })


def _added_cells(nb):
    """Answers that call functions defined in code cells the student added."""
    nb = fill(nb, {**ANSWERS, "double_answer": "def double(x):\n    return twice(x)\n"})
    index = next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == "double_answer")
    added = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": "def twice(x):\n    return x + x\n"}
    nb["cells"].insert(index + 1, added)
    return nb


def _with(nb, **answers):
    return nb_file(correct(nb, **answers))


def _outside_probe(root):
    """An answer cell that looks for instructor files and prints what it saw."""
    return (
        "import glob, os\n"
        f"targets = [{root + '/source/tiny/tiny.ipynb'!r}, {root + '/course-data/gradebook.db'!r},\n"
        f"           {root + '/nbgrader_config.py'!r}, {root + '/release/tiny/tiny.ipynb'!r}]\n"
        "seen = [p for p in targets if os.path.exists(p)]\n"
        "found = []\n"
        f"for top in ('/home', '/tmp', '/opt', {os.path.dirname(root)!r}, {_source_root()!r}):\n"
        "    found += glob.glob(top + '/**/*.ipynb', recursive=True)\n"
        "    found += glob.glob(top + '/**/*.db', recursive=True)\n"
        "print('VISIBLE', seen, found)\n"
        "answer = 42 if not seen else 0\n"
    )


def _source_root():
    """The folder holding the gptcourse package (the repository's src/)."""
    import gptcourse

    return os.path.dirname(os.path.dirname(gptcourse.__file__))


def outside_targets(root):
    """Host paths the write-outside case tries: (existing files, files it tries to create)."""
    import gptcourse
    import site

    package = os.path.dirname(gptcourse.__file__)
    site_dir = site.getsitepackages()[0]
    existing = [package + "/__init__.py", root + "/nbgrader_config.py"]
    new = [root + "/planted.txt", root + "/course-data/submitted/planted.txt",
           package + "/planted.py", site_dir + "/sitecustomize.py", site_dir + "/planted.pth",
           "/usr/planted.txt"]
    return existing, new


def _writes_outside(root):
    existing, new = outside_targets(root)
    # existing files are opened for appending but nothing is written, so even a
    # broken sandbox could not damage them; new files are really written
    return (
        "results = {}\n"
        f"for path in {existing!r}:\n"
        "    try:\n"
        "        open(path, 'a').close()\n"
        "        results[path] = 'OPENED FOR WRITING'\n"
        "    except OSError as error:\n"
        "        results[path] = type(error).__name__\n"
        f"for path in {new!r}:\n"
        "    try:\n"
        "        with open(path, 'w') as handle:\n"
        "            handle.write('import builtins; builtins.PLANTED = True\\n')\n"
        "        results[path] = 'WROTE'\n"
        "    except OSError as error:\n"
        "        results[path] = type(error).__name__\n"
        "print('WRITES', results)\n"
        "with open('conftest.py', 'w') as handle:\n"
        "    handle.write('import builtins; builtins.PLANTED = True\\n')\n"
        "answer = 42\n"
    )


def _network(port):
    return (
        "import socket\n"
        "outcome = []\n"
        f"for host in ('127.0.0.1', '10.0.0.1', 'example.org'):\n"
        "    try:\n"
        f"        socket.create_connection((host, {port}), timeout=1).close()\n"
        "        outcome.append('CONNECTED ' + host)\n"
        "    except OSError as error:\n"
        "        outcome.append(type(error).__name__)\n"
        "print('NETWORK', outcome)\n"
        "answer = 42\n"
    )


# A sitecustomize.py, usercustomize.py, a .pth file and conftest.py planted
# next to the notebook, each trying to make every torch.equal call return True.
PLANTED = "import torch\ntorch.equal = lambda *args, **kwargs: True\nprint('PLANTED RAN')\n"

WRONG_ONES = "def ones(n):\n    return torch.zeros(n)\n"
WRONG_DOUBLE = "def double(x):\n    return x + 1\n"


def cases(root, port):
    """Every case, for a course at `root`; `port` is a host port nobody may reach."""
    files = [
        Case("not-json", NONE, "not JSON",
             build=lambda nb: {"tiny.ipynb": b"this is { not json"}),
        Case("empty-file", NONE, "empty file",
             build=lambda nb: {"tiny.ipynb": b""}),
        Case("truncated", NONE, "truncated",
             build=lambda nb: {"tiny.ipynb": _raw(correct(nb))[:1500]}),
        Case("saved-as-html", NONE, "HTML, not a notebook",
             build=lambda nb: {"tiny.ipynb": b"<!DOCTYPE html>\n<html><body>"
                                          b"<pre>def double(x): return 2*x</pre></body></html>"}),
        Case("missing-notebook", NONE, "notebook missing",
             build=lambda nb: {"notes.txt": b"I forgot the notebook"}),
        Case("renamed-notebook", NONE, "notebook missing", note="tiny-Copy1.ipynb",
             build=lambda nb: {"tiny-Copy1.ipynb": correct(nb)}),
        Case("extra-notebook", ALL, note="extra notebook 'scratch.ipynb' was not graded",
             build=lambda nb: {"tiny.ipynb": correct(nb), "scratch.ipynb": nb}),
        Case("huge-outputs", ALL,
             build=lambda nb: nb_file(_huge_outputs(nb))),
        Case("non-ascii-ünïcödé", ALL,
             build=lambda nb: {"tiny.ipynb": _non_ascii(nb),
                                              "données-ü.txt": "é".encode()}),
        Case("ids-fresh", ALL,
             build=lambda nb: nb_file(_ids(correct(nb), "fresh"))),
        Case("ids-missing", ALL,
             build=lambda nb: nb_file(_ids(correct(nb), "none"))),
        Case("ids-null", ALL,
             build=lambda nb: nb_file(_ids(correct(nb), "null"))),
        Case("ids-duplicate", ALL,
             build=lambda nb: nb_file(_ids(correct(nb), "duplicate"))),
        Case("nbformat-4-0", ALL,
             build=lambda nb: nb_file(_ids(correct(nb), "old"))),
        Case("own-functions-in-added-cells", ALL,
             build=lambda nb: nb_file(_added_cells(nb))),
        Case("symlink-to-solutions", NONE, "symbolic link",
             build=lambda nb: {"tiny.ipynb": ("link", f"{root}/source/tiny/tiny.ipynb")}),
    ]
    execution = [
        Case("infinite-loop", earns(double=False), "timed out in double_visible",
             answers={"double_answer": ('def double(x):\n'
                                        '    while True:\n'
                                        '        pass\n')}),
        Case("loop-eats-memory", earns(ones=False), "MemoryError|timed out in ones",
             answers={"ones_answer": ('def ones(n):\n'
                                      '    hoard = []\n'
                                      '    while True:\n'
                                      "        hoard.append(' ' * 10**7)\n")}),
        Case("huge-allocation", earns(answer=False), "can't allocate memory",
             answers={"answer_answer": ('big = torch.empty(10**12)\n'
                                        'answer = 42\n')}),
        Case("infinite-recursion", earns(double=False), "RecursionError",
             answers={"double_answer": ('def double(x):\n'
                                        '    return double(x)\n')}),
        Case("stack-overflow", earns(double=False), "kernel died",
             answers={"double_answer": ('import sys\n'
                                        'sys.setrecursionlimit(10**8)\n'
                                        'def double(x):\n'
                                        '    return list(map(double, [x]))[0]  # C frames: the C stack\n')}),
        # three million lines in one write and many small prints: cheap to produce, so
        # the cell ends well within the batch's 3 s however loaded the machine is
        Case("million-lines", ALL,
             answers={"answer_answer": ('import sys\n'
                                        "sys.stdout.write('line\\n' * 3_000_000)\n"
                                        'for i in range(10_000):\n'
                                        "    print('line', i)\n"
                                        'answer = 42\n')}),
        Case("sys-exit", ALL, note="sys.exit",
             answers={"answer_answer": ('answer = 42\n'
                                        'import sys\n'
                                        'sys.exit()\n')}),
        Case("raise-systemexit", earns(ones=False), "sys.exit(0)",
             answers={"ones_answer": ('def ones(n):\n'
                                      '    raise SystemExit(0)\n')}),
        Case("os-exit", earns(double=False), "kernel exited",
             answers={"double_answer": ('def double(x):\n'
                                        '    import os\n'
                                        '    os._exit(0)\n')}),
        Case("kill-own-kernel", earns(ones=False), "kernel died",
             answers={"ones_answer": ('def ones(n):\n'
                                      '    import os, signal\n'
                                      '    os.kill(os.getpid(), signal.SIGKILL)\n')}),
        Case("segfault", earns(answer=False), "segmentation fault",
             answers={"answer_answer": ('import ctypes\n'
                                        'ctypes.string_at(0)\n'
                                        'answer = 42\n')}),
        # on a loaded machine the cell's 3 s may end before the 128th fork; the process
        # limit itself is tested with time to spare in tests/sandbox/test_sandbox_limits.py
        Case("fork-bomb", earns(ones=False), "Resource temporarily unavailable|timed out",
             answers={"ones_answer": ('import os, time\n'
                                      'def ones(n):\n'
                                      '    while True:\n'
                                      '        if os.fork() == 0:\n'
                                      '            time.sleep(30)\n'
                                      '            os._exit(0)\n')}),
        Case("stderr-from-correct-answer", ALL,
             answers={"double_answer": ('import sys, warnings\n'
                                        'def double(x):\n'
                                        "    warnings.warn('this is deprecated', DeprecationWarning)\n"
                                        "    print('noise on stderr', file=sys.stderr)\n"
                                        '    return 2 * x\n'),
                      "ones_answer": ('import warnings\n'
                                      'def ones(n):\n'
                                      "    warnings.warn('a user warning')\n"
                                      '    return torch.ones(n)\n')}),
    ]
    tampering = [
        Case("test-cells-edited", earns(double=False), note="was modified and restored",
             build=lambda nb: nb_file(_edit_tests(correct(nb, double_answer=WRONG_DOUBLE),
                                                                 _set_source("pass")))),
        Case("test-cells-emptied", NONE, note="was modified and restored",
             build=lambda nb: nb_file(_edit_tests(nb, _set_source("")))),
        Case("test-cells-deleted", ALL, note="was deleted",
             build=lambda nb: nb_file(
            {**correct(nb), "cells": [c for c in correct(nb)["cells"] if grade_id(c) not in POINTS]})),
        Case("test-cells-markdown", earns(ones=False), note="turned into markdown",
             build=lambda nb: nb_file(_edit_tests(correct(nb, ones_answer=WRONG_ONES),
                                                                   _to_markdown))),
        Case("test-cells-moved-up", ALL, note="was moved; the instructor's order was used",
             build=lambda nb: nb_file(_move_tests_up(correct(nb)))),
        Case("points-edited", earns(ones=False), note="points of",
             build=lambda nb: nb_file(_edit_tests(correct(nb, ones_answer=WRONG_ONES),
                                                             _points_100))),
        Case("grade-ids-edited", earns(ones=False), note="was deleted (or its id changed) and restored",
             build=lambda nb: nb_file(_rename_ids(correct(nb, ones_answer=WRONG_ONES)))),
        Case("metadata-garbled", earns(ones=False),
             build=lambda nb: nb_file(_edit_tests(correct(nb, ones_answer=WRONG_ONES),
                                                                _garble))),
        Case("metadata-newer-schema", ALL, note="schema version 99",
             build=lambda nb: nb_file(_edit_tests(
            correct(nb), lambda c: c["metadata"]["nbgrader"].update(schema_version=99)))),
        Case("answer-duplicated", ALL, note="appears 2 times",
             build=lambda nb: nb_file(_duplicate_answer(nb))),
        Case("kernelspec-changed", ALL, note="kernelspec was changed",
             build=lambda nb: nb_file(
            {**correct(nb), "metadata": {"kernelspec": {"name": "ir", "display_name": "R",
                                                        "language": "R"}}})),
    ]
    cheating = [
        Case("patch-torch-equal", earns(ones=False),
             answers={"ones_answer": ('def ones(n):\n'
                                      '    return torch.zeros(n)\n'
                                      'torch.equal = lambda *args, **kwargs: True\n'
                                      'torch.allclose = lambda *args, **kwargs: True\n'
                                      'torch.Tensor.__eq__ = lambda self, other: True\n')}),
        Case("patch-builtins", earns(double=False),
             answers={"double_answer": ('import builtins\n'
                                        'def double(x):\n'
                                        '    return str(2 * x)\n'
                                        'builtins.isinstance = lambda *args: True\n'
                                        'builtins.sum = lambda *args: 3\n'
                                        'builtins.type = lambda *args: int\n'
                                        'isinstance = lambda *args: True\n'
                                        'type = lambda *args: int\n')}),
        Case("always-equal-objects", NONE,
             answers={"double_answer": ('class Yes:\n'
                                        '    def __eq__(self, other):\n'
                                        '        return True\n'
                                        'def double(x):\n'
                                        '    return Yes()\n'),
                      "answer_answer": ('class Int(int):\n'
                                        '    def __eq__(self, other):\n'
                                        '        return True\n'
                                        'answer = Int(7)\n'),
                      "ones_answer": ('class T(torch.Tensor):\n'
                                      '    def __eq__(self, other):\n'
                                      '        return True\n'
                                      'def ones(n):\n'
                                      '    return torch.zeros(n).as_subclass(T)\n')}),
        Case("replace-assertionerror", earns(double=False),
             answers={"double_answer": ('import builtins\n'
                                        'class Quiet(Exception):\n'
                                        '    pass\n'
                                        'builtins.AssertionError = Quiet\n'
                                        'AssertionError = Quiet\n'
                                        'def double(x):\n'
                                        '    return 0\n')}),
        Case("hide-tracebacks-and-hooks", NONE,
             answers={"double_answer": ('import sys\n'
                                        'sys.excepthook = lambda *args: None\n'
                                        'sys.settrace(None)\n'
                                        'try:\n'
                                        '    ip = get_ipython()\n'
                                        '    ip.showtraceback = lambda *a, **k: None\n'
                                        "    ip.input_transformers_cleanup.append(lambda lines: ['pass\\n'])\n"
                                        "    ip.events.register('pre_run_cell', lambda *a: None)\n"
                                        'except NameError:\n'
                                        '    pass\n'
                                        'def double(x):\n'
                                        '    return 0\n')}),
        # (its input transformer empties the student's own later cells, as it would in
        # Jupyter; the checks never pass through it)
        Case("timer-repatches", earns(ones=False),
             answers={"ones_answer": ('import signal\n'
                                      'def ones(n):\n'
                                      '    return torch.zeros(n)\n'
                                      'def again(*args):\n'
                                      '    torch.equal = lambda *a, **k: True\n'
                                      'signal.signal(signal.SIGALRM, again)\n'
                                      'signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)\n')}),
        Case("background-thread", earns(ones=False),
             answers={"answer_answer": ('import threading, time\n'
                                        'def keep_patching():\n'
                                        '    while True:\n'
                                        '        torch.equal = lambda *a, **k: True\n'
                                        '        time.sleep(0.001)\n'
                                        'threading.Thread(target=keep_patching, daemon=True).start()\n'
                                        'answer = 42\n'),
                      "ones_answer": WRONG_ONES}),
        Case("forged-replies", earns(double=False),
             note="something wrote on the grader's channel",
             answers={"double_answer": FORGED_REPLIES}),
        # one reply forged with the right number, in a cell of the student's own: the
        # grader's real reply comes late, and the cell that ran before is the one to blame
        Case("forged-reply-scratch-cell", ALL, note="grader's channel",
             build=lambda nb: nb_file(_after_answer(correct(nb), "double_answer",
                                                    FORGED_ONE_REPLY))),
        # daemons that hold the process limit: the next check's fork cannot be made
        Case("process-limit-daemons", earns(ones=False),
             reason="the process limit (128 processes and threads) stopped the check's fork",
             build=lambda nb: nb_file(_after_answer(correct(nb), "ones_answer", DAEMONS))),
        Case("inspect-interpreter-objects", ALL,
             answers={"double_answer": ('import gc\n'
                                        'functions = [o for o in gc.get_objects() if callable(o)]\n'
                                        'def double(x):\n'
                                        '    return 2 * x\n')}),
        Case("grab-runner-frame", ALL,
             answers={"ones_answer": ('import sys\n'
                                      'caller = sys._getframe(1)\n'
                                      'def ones(n):\n'
                                      '    return torch.ones(n)\n')}),
        # the patch answers every call of this student's functions: ones loses too
        Case("patch-the-runner", earns(double=False, ones=False),
             answers={"double_answer": PATCHED_RUNNER}),
        Case("trace-function-during-a-test", ALL,
             answers={"double_answer": ('import sys\n'
                                        'def double(x):\n'
                                        '    sys.settrace(lambda *args: None)\n'
                                        '    return 2 * x\n')}),
        Case("trace-function-in-an-answer", ALL,
             answers={"ones_answer": ('import sys\n'
                                      'sys.settrace(lambda *args: None)\n'
                                      'sys.setprofile(lambda *args: None)\n'
                                      'def ones(n):\n'
                                      '    return torch.ones(n)\n')}),
        Case("detect-grader-environment", ALL,
             answers={"answer_answer": ('import json, os, socket, sys\n'
                                        "print('ENV', json.dumps(sorted(os.environ)))\n"
                                        "graded = any(k.startswith(('NBGRADER', 'GRADER')) for k in os.environ)\n"
                                        'answer = 42\n')}),
    ]
    # for these and detect-grader-environment, a test of their own in
    # test_grader_submissions also checks what the student code saw or did
    outside = [
        Case("read-instructor-files", ALL,
             answers={"answer_answer": _outside_probe(root)}),
        Case("write-outside", ALL,
             answers={"answer_answer": _writes_outside(root)}),
        Case("planted-startup-files", earns(ones=False),
             build=lambda nb: {
            "tiny.ipynb": correct(nb, ones_answer=WRONG_ONES), "sitecustomize.py": PLANTED,
            "usercustomize.py": PLANTED, "planted.pth": "import sitecustomize\n",
            "conftest.py": PLANTED}),
        Case("network", ALL,
             answers={"answer_answer": _network(port)}),
    ]
    isolation = [
        Case("stall-the-request-pipe", earns(answer=False), "timed out",
             build=lambda nb: nb_file(_after_answer(
            correct(nb, answer_answer="answer = 42\n" + STALL_REQUESTS), "answer_answer",
            "# a long cell\n" + "#" * 150_000 + "\nprint('never run')\n"))),
        Case("record-what-checks-pass", ALL,
             build=lambda nb: nb_file(_after_answer(
            correct(nb, double_answer=RECORDING_DOUBLE), "answer_answer", REPLAY_RECORDS))),
        Case("control-characters-in-messages", earns(double=False), "in double: badvaluehere[31m",
             answers={"double_answer": ('def double(x):\n'
                                        "    raise ValueError('bad\\x00value\\rhere\\x1b[31m')\n")}),
        Case("=1+2", ALL,
             answers={}),
        Case("@SUM(1)", earns(double=False),
             answers={"double_answer": WRONG_DOUBLE}),
        Case("huge-answer-cell", earns(double=False), note="answer cell 'double_answer' too large",
             answers={"double_answer": "def double(x):\n    return 2 * x\n" + "# padding\n" * 2_500_000}),
    ]
    return (files + execution + tampering + cheating + outside + isolation
            + red_team_cases())


# Kept open by a child, the runner's request pipe is swapped for one nobody writes:
# the runner waits forever, and a large request from the grader would fill the pipe.
STALL_REQUESTS = """import os, sys, time
request_fd = int(sys.argv[1])  # the runner's request pipe
read_end, write_end = os.pipe()
if os.fork() == 0:
    time.sleep(600)
    os._exit(0)
os.dup2(read_end, request_fd)
"""

# Records every argument the checks pass, in memory and in a file, for a later cell.
RECORDING_DOUBLE = """import os
seen = []
def double(x):
    seen.append(x)
    with open('seen.txt', 'a') as handle:
        handle.write(repr(x) + ' ')
    return 2 * x
"""
REPLAY_RECORDS = """print('SEEN', seen)
print('FILE', os.path.exists('seen.txt'))
import sys
print('MODULES', sorted(m for m in sys.modules if m.startswith('double')))
"""


# Replies in the kernel's protocol (sandbox/inside/protocol.py), written ahead on every descriptor
# for every request id the grader is likely to use: a call's value equal to what
# the visible check wants and a passing status. The grader must notice the lines
# it did not ask for, so double (which returns 0) earns nothing.
FORGED_REPLIES = """import json, os
for fd in range(3, 64):
    for request_id in range(200):
        line = json.dumps({"id": request_id, "status": "ok", "value": 4, "passed": True})
        try:
            os.write(fd, (line + "\\n").encode())
        except OSError:
            pass
def double(x):
    return 0
"""
FORGED_ONE_REPLY = """import gc, json, os
# the number of this cell's request, from the last line the runner's request reader read
reader = next(o for o in gc.get_objects()
              if type(o).__name__ == "generator" and o.gi_code.co_name == "read_requests")
mine = json.loads(reader.gi_frame.f_locals["line"])["id"]
os.write(4, (json.dumps({"id": mine, "status": "ok"}) + "\\n").encode())
"""
DAEMONS = """import subprocess
daemons = []
try:
    while len(daemons) < 1000:
        daemons.append(subprocess.Popen(["sleep", "300"], start_new_session=True))
except OSError:
    pass
print("daemons started:", len(daemons))
"""
# The runner's own Runner class, found among the live objects (the template's are
# frozen for the collector: unfrozen first, which any code may do) and patched so
# that every call of an answer replies with fields claiming success and a value
# that pretends to be an int: the checks take the reply only as the student's
# answer, which is then wrong for every function the checks call.
PATCHED_RUNNER = """import gc
gc.unfreeze()
runner = next(o for o in gc.get_objects() if type(o).__name__ == "Runner")
Runner = type(runner)
def call(self, request, reply):
    reply.update({"value": {"$opaque": "int"}, "status": "passed", "points": 100,
                  "passed": True})
Runner.call = call
print("PATCHED", Runner.__name__, Runner.call is call)
def double(x):
    return 0
"""


def _after_answer(nb, answer_id, source):
    index = next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == answer_id)
    nb["cells"].insert(index + 1, {"cell_type": "code", "metadata": {}, "outputs": [],
                                   "execution_count": None, "source": source})
    return nb


# Attacks on the grader's channel to the kernel and on tests run inside the
# kernel (the design before the checks moved out of it). Each must earn no more
# than the honest work in it and show nothing of the hidden test.
HIJACK = """import os, sys, json
request_fd, reply_fd = int(sys.argv[1]), int(sys.argv[2])
seen = []
def send(message):
    os.write(reply_fd, (json.dumps(message) + "\\n").encode())
def forged(r):
    return {"id": r.get("id"), "nonce": r.get("nonce"), "cell": r.get("cell"),
            "status": "passed" if r.get("kind") == "test" else "ok"}
def serve(fd):
    buffer = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            os._exit(0)
        buffer += chunk
        while b"\\n" in buffer:
            line, buffer = buffer.split(b"\\n", 1)
            r = json.loads(line)
            seen.append(line.decode())
            if r.get("op") == "run" or r.get("kind") in ("setup", "solution"):
                os.write(1, "\\n=====\\n".join(seen).encode()[-19000:])
            send(forged(r))
"""
HIJACK_FRAME = HIJACK + """frame = sys._getframe(0).f_back
mine = dict(frame.f_locals.get("reply") or frame.f_locals.get("request") or {})
send(forged(mine))
serve(request_fd)
"""
HIJACK_THREAD = HIJACK + """import threading
real = os.dup(request_fd)
dummy_read, dummy_write = os.pipe()
os.dup2(dummy_read, request_fd)
threading.Thread(target=serve, args=(real,), daemon=True).start()
"""
NAMES_COPIED_BACK = ("def ones(n):\n"
                     "    # ones only when names a check defined are in this namespace\n"
                     "    return torch.ones(n) if 'result' in globals() else torch.zeros(n)\n"
                     "print('LEAKED', sorted(k for k in ('result', 'value', 'expected')"
                     " if k in globals()))\n")
FRAME_ORACLE = ("import sys\n"
                "def double(x):\n"
                "    frame = sys._getframe(1)\n"
                "    while frame is not None:  # the check's expected value, from its frame\n"
                "        for scope in (frame.f_locals, frame.f_globals):\n"
                "            if 'expected' in scope:\n"
                "                return scope['expected']\n"
                "        frame = frame.f_back\n"
                "    return 4\n")


def leak_by_exception(function):
    """An answer `function(x)` that raises every string of its callers holding 'HIDDEN'."""
    return ("import sys\n"
            f"def {function}(x):\n"
            "    found = []\n"
            "    frame = sys._getframe(1)\n"
            "    while frame is not None:\n"
            "        for scope in (frame.f_locals, frame.f_globals):\n"
            "            found += [v for v in list(scope.values())\n"
            "                      if isinstance(v, str) and 'HIDDEN' in v]\n"
            "        frame = frame.f_back\n"
            "    raise AssertionError(' '.join(found)[:590] or 'nothing found')\n")


CLASS_PATCH = ("import gptcourse.model\n"
               "def ones(n):\n    return torch.zeros(n)\n"
               "torch.ones = torch.zeros\n"
               "torch.Tensor.__eq__ = lambda self, other: True\n"
               "gptcourse.model.GPTModel.forward = lambda self, ids: None\n")
IMPORT_POISON = ("import builtins, sys, types\n"
                 "fake = types.ModuleType('torch')\n"
                 "fake.__dict__.update(sys.modules['torch'].__dict__)\n"
                 "fake.equal = lambda *args, **kwargs: True\n"
                 "real_import = builtins.__import__\n"
                 "def poisoned(name, *args, **kwargs):\n"
                 "    module = real_import(name, *args, **kwargs)\n"
                 "    return fake if name == 'torch' else module\n"
                 "builtins.__import__ = poisoned\n"
                 "bootstrap = sys.modules['_frozen_importlib']\n"
                 "real_fromlist = bootstrap._handle_fromlist\n"
                 "bootstrap._handle_fromlist = lambda module, *a, **k: (\n"
                 "    fake if module is sys.modules['torch'] else real_fromlist(module, *a, **k))\n"
                 "sys.modules['torch'] = fake\n"
                 "torch = fake\n"
                 "def ones(n):\n    return torch.zeros(n)\n")
RED_TEAM = ["protocol-hijack", "protocol-hijack-thread", "hidden-test-names-copied-back",
            "frame-expected-values", "leak-via-exception", "unrestored-class-patch",
            "import-machinery-poison"]


def red_team_cases():
    return [
        Case("protocol-hijack", NONE,
             build=lambda nb: nb_file(fill(nb, {"double_answer": HIJACK_FRAME}))),
        Case("protocol-hijack-thread", NONE,
             build=lambda nb: nb_file(fill(nb, {"double_answer": HIJACK_THREAD}))),
        Case("hidden-test-names-copied-back", earns(ones=False),
             answers={"ones_answer": NAMES_COPIED_BACK}),
        Case("frame-expected-values", {**ALL, "double_hidden": 0.0},
             answers={"double_answer": FRAME_ORACLE}),  # a constant 4 earns the visible check only
        Case("leak-via-exception", earns(double=False),
             answers={"double_answer": leak_by_exception("double")}),
        Case("unrestored-class-patch", earns(ones=False),
             answers={"ones_answer": CLASS_PATCH}),
        Case("import-machinery-poison", earns(ones=False),
             answers={"ones_answer": IMPORT_POISON}),
    ]
