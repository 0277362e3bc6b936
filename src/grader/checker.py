"""The test cells, run in the grader's own process against what the student's kernel defined.

The sandboxed kernel (``runner.py``) runs the set-up and answer cells and then
only answers questions: which names exist, what a value is, what a function
returns for given arguments. The checker runs the instructor's set-up cells
in a namespace of its own (the same seeds build the same models), and for each
test cell puts the student's answers into a fresh copy of that namespace:
values decoded from plain JSON into real Python and torch objects, functions
as proxies that send their arguments to the kernel and decode the result. The
test code then runs here; it passes only if it returns normally in this
process. Nothing the kernel sends is unpickled or evaluated, and nothing a test
defines ever reaches the kernel.
"""

import ast
import base64
import builtins
import contextlib
import io
import math
import pickle
import textwrap
import time
import types

from .runner import short as _short
from .sandbox import OUTPUT_CAP, clean  # a test cell's own printing keeps as much as a cell's



class KernelLost(BaseException):
    """The kernel timed out, died or sent garbage: the test fails whatever it catches.

    A BaseException, so an instructor's `except Exception` cannot swallow it.
    """

    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, message


# ---------------------------------------------------------------- decoding student values

def _dtypes():
    import torch

    names = ["float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16", "int32",
             "int64", "bool"]
    return {f"torch.{name}": getattr(torch, name) for name in names}


def opaque_class(name):
    """A fresh class named like the student's type: `type(x).__name__` reads right, nothing else."""
    name = clean(name, 200)
    short_name = name.rpartition(".")[2].split(" ")[0] or "object"
    return type(short_name, (), {"__qualname__": short_name, "__module__": "submission",
                                 "__repr__": lambda self: f"<{name} object from the submission>"})


def decode(data):
    """A real Python or torch object from the kernel's plain JSON; ValueError if malformed."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(item) for item in data]
    if type(data) is not dict:
        raise ValueError("malformed answer")
    if "$opaque" in data:
        return opaque_class(str(data["$opaque"]))()
    kind = data.get("$type")
    if kind == "float":
        text = data.get("repr")
        if text not in ("nan", "inf", "-inf"):
            raise ValueError("malformed float")
        return float(text)
    if kind == "tuple":
        return tuple(decode(item) for item in _items(data))
    if kind == "dict":
        result = {}
        for pair in _items(data):
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("malformed dict")
            result[decode(pair[0])] = decode(pair[1])
        return result
    if kind == "torch.Size":
        import torch

        return torch.Size([_dimension(d) for d in _items(data)])
    if kind == "torch.Tensor":
        return _tensor(data)
    if kind == "numpy":
        import numpy

        dtype = str(data.get("dtype"))
        if dtype not in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64", "float16", "float32", "float64"):
            raise ValueError("unknown numpy dtype")
        shape = [_dimension(d) for d in data.get("shape", [])]
        array = numpy.array(_floats(data.get("data")), dtype=dtype).reshape(shape)
        return array[()] if not shape else array
    raise ValueError("malformed answer")


def _items(data):
    items = data.get("items")
    if type(items) is not list:
        raise ValueError("malformed answer")
    return items


def _dimension(value):
    if type(value) is not int or value < 0:
        raise ValueError("malformed shape")
    return value


def _floats(data):
    if type(data) is dict:
        return decode(data)
    if type(data) is list:
        return [_floats(item) for item in data]
    if data is None or type(data) not in (bool, int, float):
        raise ValueError("malformed tensor data")
    return data


def _tensor(data):
    import torch

    dtype = _dtypes().get(str(data.get("dtype")))
    if dtype is None:
        raise ValueError("unknown tensor dtype")
    shape = [_dimension(d) for d in data.get("shape", [])]
    if data.get("device") == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    if math.prod(shape) > (64 << 20):
        raise ValueError("tensor too large")
    tensor = torch.tensor(_floats(data.get("data")), dtype=dtype)
    if tensor.numel() != math.prod(shape):
        raise ValueError("tensor data does not match its shape")
    tensor = tensor.reshape(shape)
    if data.get("requires_grad") is True and tensor.is_floating_point():
        tensor.requires_grad_(True)
    return tensor


# ---------------------------------------------------------------- sending arguments

class ArgumentPickler(pickle.Pickler):
    """Pickles a call's arguments; set-up objects and the tokenizer go by name."""

    def __init__(self, stream, by_id):
        super().__init__(stream, protocol=4)
        self.by_id = by_id

    def persistent_id(self, obj):
        name = self.by_id.get(id(obj))
        if name is not None:
            return ("setup", name)
        if type(obj).__module__ == "tiktoken.core" and type(obj).__name__ == "Encoding":
            return ("tokenizer", getattr(obj, "name", ""))
        return None


SIMPLE = (type(None), bool, int, float, str, bytes, type, types.ModuleType, types.FunctionType,
          types.BuiltinFunctionType)


def answer_names(instructor_cells):
    """Names bound at the top level of the instructor's solution cells (not inside functions)."""
    names = set()
    for source in instructor_cells:
        try:
            tree = ast.parse(strip(source))
        except SyntaxError:
            continue
        names |= _bound(tree.body)
    return names


def _bound(statements):
    names = set()
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        for child in ast.walk(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                if not isinstance(child, ast.Lambda):
                    names.add(child.name)
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
    # (an `import torch` in a solution cell is not an answer: the checker's own torch stays)
    return names


def used_names(code):
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def strip(code):
    lines = []
    for line in code.splitlines():
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass"
                     if stripped.startswith(("%", "!")) else line)
    return "\n".join(lines)


class Checker:
    """Runs one notebook's test cells in this process, asking the kernel for the answers."""

    def __init__(self, setup_sources, solution_sources):
        self.setup = {"__builtins__": builtins, "__name__": "__main__"}
        self.answers = answer_names(solution_sources)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for source in setup_sources:
                try:
                    exec(compile(strip(source), "<setup>", "exec"), self.setup)
                except (Exception, SystemExit):  # noqa: BLE001 (a demo cell that uses an answer)
                    pass
        self.by_id = {id(v): k for k, v in self.setup.items()
                      if not k.startswith("__") and not isinstance(v, SIMPLE)}

    def check(self, code, kernel, deadline, limit):
        """(status, message, output) of one test cell; kernel may be killed on the way.

        Calls to the kernel must end by `deadline`; `limit` is the per-cell timeout the
        report names (the same words in every run).
        """
        lost = []
        self.limit = limit
        namespace = dict(self.setup)
        self.calls = CallContext(namespace, code)
        wanted = sorted(name for name in used_names(code) & self.answers
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
                        module = clean(info.get("module"), 200)
                        if ((module == "gptcourse" or module.startswith("gptcourse."))
                                and info.get("qualname") == name):
                            return ("failed", f"{name} is the course package's own function; "
                                    "write your own", "")
                        namespace[name] = self._proxy(name, kernel, deadline, lost)
                        self.calls.proxies[name] = namespace[name]
                    else:
                        reply = self._ask(kernel, {"op": "get", "name": name}, deadline, lost, name)
                        namespace[name] = self._decode(reply, name)
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                try:
                    exec(compile(code, "<test>", "exec"), namespace)
                finally:
                    if self.calls.called and not lost:  # the child that answered the calls goes
                        self._ask(kernel, {"op": "end"}, deadline, lost, "the end of the check")
        except KernelLost as problem:
            return problem.status, problem.message, _capped(output)
        except KeyboardInterrupt:  # the instructor stopped the grading
            raise
        except BaseException as exc:  # noqa: BLE001 (any failure of the check is a failed test)
            if lost:
                return lost[0].status, lost[0].message, _capped(output)
            return "failed", short(exc), _capped(output)
        if lost:  # the test caught the kernel's loss itself: it still fails
            return lost[0].status, lost[0].message, _capped(output)
        return "passed", "", _capped(output)

    def _ask(self, kernel, message, deadline, lost, what):
        if lost:
            raise lost[0]
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            lost.append(KernelLost("timeout", f"in {what}: no time was left"))
            kernel.kill()
            raise lost[0]
        reply, outcome = kernel.request(message, remaining)
        if reply is None:
            if outcome.status == "timeout":
                problem = KernelLost("timeout",
                                     f"in {what}: timed out after {self.limit:g} seconds")
            elif outcome.status == "died":
                problem = KernelLost("died", f"{outcome.message} while running {what}")
            else:
                problem = KernelLost("failed", f"{outcome.message} (in {what})")
            lost.append(problem)
            raise problem
        if "error" in reply:
            raise RuntimeError(f"in {what}: {clean(reply['error'])}")
        return reply

    def _decode(self, reply, name):
        if "value" not in reply:
            raise RuntimeError(f"in {name}: the kernel sent no value")
        try:
            return decode(reply["value"])
        except (ValueError, TypeError, RuntimeError, RecursionError, OverflowError,
                MemoryError) as problem:
            raise RuntimeError(f"in {name}: the answer could not be read ({clean(problem, 200)})")

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
            if "exception" in reply:
                raise _student_exception(reply, name)
            return checker._decode(reply, name)

        proxy.__name__ = proxy.__qualname__ = name
        return proxy


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

    def __init__(self, namespace, code):
        self.namespace, self.proxies = namespace, {}
        self.called = False  # a call went to the kernel: its check must end there too
        self.definitions = {}  # (name, first line) -> source of a def in the test cell
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                source = ast.get_source_segment(code, node, padded=True)
                if source:
                    self.definitions[(node.name, first)] = textwrap.dedent(source)

    def overrides(self, called):
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


def _student_exception(reply, name):
    kind = getattr(builtins, str(reply.get("exception")), None)
    message = f"in {name}: {clean(reply.get('message') or '')}".rstrip(": ")
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
    try:
        return kind(message)
    except Exception:  # noqa: BLE001 (a builtin exception that wants other arguments)
        return RuntimeError(message)


def short(exc):
    """'TypeError: message', as the kernel words it, made safe for reports."""
    return clean(_short(exc))


def _capped(output):
    text = output.getvalue()
    if len(text) > OUTPUT_CAP:
        text = text[:OUTPUT_CAP] + f"\n[... {len(text) - OUTPUT_CAP:,} more characters dropped]\n"
    return clean(text, OUTPUT_CAP + 100)
