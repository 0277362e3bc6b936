"""The test cells, run in the grader's own process against what the student's kernel defined.

The sandboxed kernel (``sandbox/inside/``) runs the set-up and answer cells and then
only answers questions: which names exist, what a value is, what a function
returns for given arguments. The checker runs the instructor's set-up cells
in a namespace of its own (the same seeds build the same models), and for each
test cell puts the student's answers into a fresh copy of that namespace:
values decoded from plain JSON into real Python and torch objects, functions
as proxies that send their arguments to the kernel and decode the result. The
test code then runs here; it passes only if it returns normally in this
process. Nothing the kernel sends is unpickled or evaluated, and nothing a test
defines ever reaches the kernel.

A set-up cell that reads the student's id (cells.reads_student_id) is left out
of the shared set-up: `for_student` runs it for each student, with the
submission's id where the cell reads it, so a check compares with that
student's own values whatever the notebook typed.
"""


import ast
import base64
import builtins
import contextlib
import copy
import io
import os
import textwrap
import time
import types

from ..cells import STUDENT_ID_VARIABLE, reads_student_id
from ..safe_text import capped
# a test cell's own printing keeps as much as a cell's (OUTPUT_CAP)
from ..sandbox import MESSAGE_CAP, OUTPUT_CAP, CellStatus, Kernel
from ..sandbox.inside.shared import short
from .answers import answer_names, without_magics
from .values import ArgumentPickler, decode, mirror_changes


class KernelLost(BaseException):
    """The kernel timed out, died or sent garbage: the test fails whatever it catches.

    A BaseException, so an instructor's `except Exception` cannot swallow it.
    """

    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, message


SIMPLE = (type(None), bool, int, float, str, bytes, type, types.ModuleType, types.FunctionType,
          types.BuiltinFunctionType)


class Checker:
    """Runs one notebook's test cells in this process, asking the kernel for the answers."""

    def __init__(self, setup_sources: list[str], solution_sources: list[str], package: str):
        self.package = package  # the course package: its own functions are not answers
        self.setup = {"__builtins__": builtins, "__name__": "__main__"}
        self.answers = answer_names(solution_sources)
        self.student_setup = [s for s in setup_sources if reads_student_id(s)]
        _run_setup([s for s in setup_sources if not reads_student_id(s)], self.setup)
        self.by_id = _names_by_id(self.setup)
        self.tests: dict[str, TestCell] = {}  # each test cell parsed and compiled once

    def for_student(self, student: str) -> "Checker":
        """This Checker with the set-up cells that read the student's id run for `student`.

        Shares the set-up of everyone (nothing is built again); without such
        cells it is this Checker itself.
        """
        if not self.student_setup:
            return self
        own = copy.copy(self)
        own.setup = dict(self.setup)
        saved = os.environ.get(STUDENT_ID_VARIABLE)
        os.environ[STUDENT_ID_VARIABLE] = student  # read by the cells, as in the student's kernel
        try:
            _run_setup(self.student_setup, own.setup)
        finally:
            if saved is None:
                del os.environ[STUDENT_ID_VARIABLE]
            else:
                os.environ[STUDENT_ID_VARIABLE] = saved
        own.by_id = _names_by_id(own.setup)
        return own

    def check(self, code: str, kernel: Kernel, deadline: float,
              limit: float) -> tuple[CellStatus, str, str]:
        """(status, message, output) of one test cell; kernel may be killed on the way.

        Calls to the kernel must end by `deadline`; `limit` is the per-cell timeout the
        report names (the same words in every run).
        """
        lost, refused = [], []  # the kernel's loss; a call to the package's own function
        self.limit = limit
        namespace = dict(self.setup)
        test = self.tests.get(code)
        if test is None:
            test = self.tests[code] = TestCell(code)
        self.calls = CallContext(namespace, test.definitions)
        wanted = sorted(name for name in test.names & self.answers
                        if not isinstance(self.setup.get(name), types.ModuleType))
        output = io.StringIO()
        try:
            if wanted:
                names = self._ask(kernel, {"op": "describe", "names": wanted}, deadline, lost,
                                  "the answers")
                names = names.get("names") if isinstance(names.get("names"), dict) else {}
                for name in wanted:
                    info = names.get(name)
                    if not isinstance(info, dict):
                        continue
                    if info.get("callable") is True:
                        module = capped(str(info.get("module")), 200)
                        if ((module == self.package or module.startswith(self.package + "."))
                                and info.get("qualname") == name):
                            # refused only if the check calls it: a check may put a
                            # reference in its place while it grades another answer
                            namespace[name] = self._refusal(name, refused)
                        else:
                            namespace[name] = self._proxy(name, kernel, deadline, lost)
                        self.calls.proxies[name] = namespace[name]
                    else:
                        reply = self._ask(kernel, {"op": "get", "name": name}, deadline, lost, name)
                        namespace[name] = self._decode(reply, name)
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                try:
                    exec(test.compiled(), namespace)
                finally:
                    if self.calls.called and not lost:  # the child that answered the calls goes
                        self._ask(kernel, {"op": "end"}, deadline, lost, "the end of the check")
        except KernelLost as problem:
            return problem.status, problem.message, _capped(output)
        except KeyboardInterrupt:  # the instructor stopped the grading
            raise
        except BaseException as exc:  # noqa: BLE001 (any failure of the check is a failed test)
            if lost or refused:
                problem = (lost or refused)[0]
                return problem.status, problem.message, _capped(output)
            return CellStatus.FAILED, exception_text(exc), _capped(output)
        if lost or refused:  # the test caught the loss or the refusal itself: it still fails
            problem = (lost or refused)[0]
            return problem.status, problem.message, _capped(output)
        return CellStatus.PASSED, "", _capped(output)

    def _ask(self, kernel, message, deadline, lost, what):
        if lost:
            raise lost[0]
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            lost.append(KernelLost(CellStatus.TIMEOUT, f"in {what}: no time was left"))
            kernel.kill()
            raise lost[0]
        reply, outcome = kernel.request(message, remaining)
        if reply is None:
            if outcome.status == CellStatus.TIMEOUT:
                problem = KernelLost(CellStatus.TIMEOUT,
                                     f"in {what}: timed out after {self.limit:g} seconds")
            elif outcome.status == CellStatus.DIED:
                problem = KernelLost(CellStatus.DIED, f"{outcome.message} while running {what}")
            else:
                problem = KernelLost(CellStatus.FAILED, f"{outcome.message} (in {what})")
            lost.append(problem)
            raise problem
        if "error" in reply:
            raise RuntimeError(f"in {what}: {capped(str(reply['error']), MESSAGE_CAP)}")
        return reply

    def _decode(self, reply, name):
        if "value" not in reply:
            raise RuntimeError(f"in {name}: the kernel sent no value")
        try:
            return decode(reply["value"])
        except (ValueError, TypeError, RuntimeError, RecursionError, OverflowError,
                MemoryError) as problem:
            raise RuntimeError(f"in {name}: the answer could not be read "
                               f"({capped(str(problem), 200)})")

    def _refusal(self, name, refused):
        """Stands for the course package's own function: a call to it fails the check,
        whatever the check catches."""

        def refusal(*args, **kwargs):
            refused.append(KernelLost(CellStatus.FAILED, f"{name} is the course package's "
                                      "own function; write your own"))
            raise refused[-1]

        refusal.__name__ = refusal.__qualname__ = name
        return refusal

    def _proxy(self, name, kernel, deadline, lost):
        checker = self

        def proxy(*args, **kwargs):
            checker.calls.called = True
            stream = io.BytesIO()
            try:
                ArgumentPickler(stream, checker.by_id).dump((args, kwargs))
            except Exception as problem:  # noqa: BLE001 (an instructor's test passed something odd)
                raise RuntimeError(f"the arguments for {name} could not be sent: {problem}")
            reply = checker._ask(kernel, {"op": "call", "name": name,
                                          "args": base64.b64encode(stream.getvalue()).decode(),
                                          "overrides": checker.calls.overrides(name)},
                                 deadline, lost, name)
            if "changed" in reply:  # the call changed a model or tensor it was given
                try:
                    mirror_changes(args, kwargs, reply["changed"], checker.by_id)
                except (ValueError, TypeError, AttributeError, RuntimeError, RecursionError,
                        OverflowError, MemoryError) as problem:
                    raise RuntimeError(f"in {name}: what it changed in its arguments could not "
                                       f"be read ({capped(str(problem), 200)})")
            if "exception" in reply:
                raise _student_exception(reply, name)
            return checker._decode(reply, name)

        proxy.__name__ = proxy.__qualname__ = name
        return proxy


class TestCell:
    """One test cell's source, read once for every student: the names it uses, the
    functions it defines (CallContext) and its compiled code."""

    def __init__(self, code: str):
        self.code, self.code_object = code, None
        self.names: set[str] = set()  # every name the cell reads or binds (none if unparsable)
        self.definitions: dict[tuple[str, int], str] = {}  # (name, first line) -> a def's source
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                self.names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                source = ast.get_source_segment(code, node, padded=True)
                if source:
                    self.definitions[(node.name, first)] = textwrap.dedent(source)

    def compiled(self) -> types.CodeType:
        """The cell's code object (a cell that does not compile raises each time)."""
        if self.code_object is None:
            self.code_object = compile(self.code, "<test>", "exec")
        return self.code_object


class CallContext:
    """What the student's functions see of one test cell when it calls them.

    A check may put a reference version of one answer in place of the
    student's while it tests another (``def next_token_ids(logits): ...``
    bound in the test cell, the student's restored afterwards), so that one
    mistake costs one question. In a notebook that works because the check
    rebinds the student's global; here, each call carries the definitions
    of the answer names that the test cell has bound to its own functions at
    that moment, and the kernel binds them for that call only.
    """

    def __init__(self, namespace, definitions):
        self.namespace, self.proxies = namespace, {}
        self.called = False  # a call went to the kernel: its check must end there too
        self.definitions = definitions  # (name, first line) -> source of a def in the cell

    def overrides(self, called: str) -> list[str]:
        found = []
        for name, proxy in self.proxies.items():
            current = self.namespace.get(name)
            if name == called or current is proxy or not isinstance(current, types.FunctionType):
                continue
            code = current.__code__
            source = self.definitions.get((name, code.co_firstlineno))
            if code.co_filename == "<test>" and source:
                found.append(source)
        return found


def _run_setup(sources, namespace):
    """The instructor's set-up cells run in `namespace`, quietly, a failing one skipped."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for source in sources:
            try:
                exec(compile(without_magics(source), "<setup>", "exec"), namespace)
            except (Exception, SystemExit):  # noqa: BLE001 (a demo cell that uses an answer)
                pass


def _names_by_id(namespace):
    """{id(object): name} of the set-up's objects, which are sent to the kernel by name."""
    return {id(v): k for k, v in namespace.items()
            if not k.startswith("__") and not isinstance(v, SIMPLE)}


def _student_exception(reply, name):
    kind = getattr(builtins, str(reply.get("exception")), None)
    message = f"in {name}: {capped(str(reply.get('message') or ''), MESSAGE_CAP)}".rstrip(": ")
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
    try:
        return kind(message)
    except Exception:  # noqa: BLE001 (a builtin exception that wants other arguments)
        return RuntimeError(message)


def exception_text(exc: BaseException) -> str:
    """'TypeError: message', as the kernel words it (inside's short), made safe for reports."""
    return capped(short(exc), MESSAGE_CAP)


def _capped(output):
    text = output.getvalue()
    if len(text) > OUTPUT_CAP:
        text = text[:OUTPUT_CAP] + f"\n[... {len(text) - OUTPUT_CAP:,} more characters dropped]\n"
    return capped(text, OUTPUT_CAP + 100)
