"""Runs a notebook's set-up and answer cells inside the sandbox, then serves their values.

This file is started by the grader as a plain script (``python -I runner.py``)
inside the sandbox; it imports nothing from the grader package. The driver
sends one JSON line per request on the request pipe and reads one JSON line
back on the reply pipe (their descriptors are the two arguments):

    {"id": n, "op": "run", "kind": "setup" | "solution" | "extra", "code": "..."}
        -> {"id": n, "status": "ok" | "error", "error": "...", "result": "repr"}
    {"id": n, "op": "describe", "names": [...]}
        -> {"id": n, "names": {name: {"callable": bool, "module": str, "qualname": str}}}
    {"id": n, "op": "get", "name": "..."}        -> {"id": n, "value": encoded}
    {"id": n, "op": "call", "name": "...", "args": base64 pickle of (args, kwargs)}
        -> {"id": n, "value": encoded} or {"id": n, "exception": "TypeError", "message": "..."}
    any request that cannot be answered -> {"id": n, "error": "..."}

The runner decides nothing: the test cells never come here. They run in the
grader's own process (``checker.py``), which asks for the values the answers
define and calls the answers' functions through this channel. Whatever this
process replies is only ever treated as an answer to check, so student code
that takes over the channel can do no more than answer for itself.

Printed output goes to file descriptors 1 and 2, which the driver reads and
caps; the runner flushes them before each reply.
"""

import ast
import base64
import builtins
import io
import json
import math
import os
import pickle
import sys
import types

_os_read = os.read
_os_write = os.write
_dumps = json.dumps
_loads = json.loads
_exec = builtins.exec
_eval = builtins.eval
_compile = builtins.compile
_BaseException = BaseException
_type = type
_str = str
_repr = repr
_isinstance = isinstance

REQUEST_FD, REPLY_FD = 3, 4  # set from the command line by main()
RESULT_CAP = 2_000  # characters of a trailing expression's repr kept
MESSAGE_CAP = 600
VALUE_CAP = 32 << 20  # characters of one encoded value
DEPTH_CAP = 64  # nesting of lists, tuples and dicts in a value


def short(exc):
    """'TypeError: message' in at most MESSAGE_CAP characters, whatever the exception does."""
    try:
        name = _type(exc).__name__
    except _BaseException:
        name = "Exception"
    try:
        text = _str(exc)
    except _BaseException:
        text = "(the exception's message could not be printed)"
    if _isinstance(exc, SystemExit):
        return f"the code called sys.exit({text})" if text else "the code called sys.exit()"
    if _isinstance(exc, KeyboardInterrupt):
        return "the code raised KeyboardInterrupt"
    message = f"{name}: {text}" if text else name
    return message[:MESSAGE_CAP]


def strip_magics(code):
    """IPython magics and shell escapes are not Python: turn those lines into `pass`."""
    lines = []
    for line in code.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            lines.append(line[: len(line) - len(stripped)] + "pass")
        else:
            lines.append(line)
    return "\n".join(lines)


def split_trailing_expression(code):
    """(body, expression) code objects, the expression being a bare last statement if any."""
    tree = ast.parse(code, "<cell>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = _compile(tree, "<cell>", "exec")
    return body, (_compile(last, "<cell>", "eval") if last is not None else None)


class TooLarge(Exception):
    """An answer too large to send."""


def qualified_name(value):
    kind = _type(value)
    return f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"


class Encoder:
    """Plain JSON for the types the checks compare by value; a type name for anything else."""

    def __init__(self):
        self.size = 0
        torch = sys.modules.get("torch")
        self.tensor = getattr(torch, "Tensor", None)
        self.size_type = getattr(torch, "Size", None)
        numpy = sys.modules.get("numpy")
        self.np_generic = getattr(numpy, "generic", None)
        self.np_array = getattr(numpy, "ndarray", None)

    def grow(self, amount):
        self.size += amount
        if self.size > VALUE_CAP:
            raise TooLarge("answer too large")

    def encode(self, value, depth=0):
        if depth > DEPTH_CAP:
            raise TooLarge("answer nested too deeply")
        kind = _type(value)
        self.grow(8)
        if value is None or kind is bool or kind is int:
            if kind is int and value.bit_length() > 4000:
                raise TooLarge("answer too large (an int of more than 4000 bits)")
            return value
        if kind is float:
            if math.isfinite(value):
                return value
            return {"$type": "float", "repr": _repr(value)}
        if kind is str:
            self.grow(len(value))
            return value
        if kind is list:
            return [self.encode(item, depth + 1) for item in value]
        if kind is tuple:
            return {"$type": "tuple", "items": [self.encode(item, depth + 1) for item in value]}
        if kind is dict:
            pairs = [[self.encode(k, depth + 1), self.encode(v, depth + 1)]
                     for k, v in list(value.items())]
            return {"$type": "dict", "items": pairs}
        if self.size_type is not None and kind is self.size_type:
            return {"$type": "torch.Size", "items": [int(d) for d in value]}
        if self.tensor is not None and kind is self.tensor:
            return self.encode_tensor(value)
        if self.np_array is not None and kind is self.np_array or (
                self.np_generic is not None and _isinstance(value, self.np_generic)
                and kind.__module__ == "numpy"):
            self.grow(value.size * 24)
            if value.dtype.kind not in "biuf":
                return {"$opaque": qualified_name(value)}
            return {"$type": "numpy", "dtype": _str(value.dtype), "shape": list(value.shape),
                    "data": self.floats(value.tolist())}
        return {"$opaque": qualified_name(value)}

    def encode_tensor(self, value):
        shape = [int(d) for d in value.shape]
        dtype = _str(value.dtype)
        if value.device.type == "meta":
            return {"$type": "torch.Tensor", "dtype": dtype, "shape": shape, "device": "meta"}
        if value.is_complex() or value.is_quantized or value.is_sparse:
            return {"$opaque": qualified_name(value) + f" ({dtype})"}
        self.grow(value.numel() * 24)
        data = value.detach().cpu().tolist()
        return {"$type": "torch.Tensor", "dtype": dtype, "shape": shape,
                "requires_grad": bool(value.requires_grad), "data": self.floats(data)}

    def floats(self, data):
        """JSON has no nan or infinity: tag the (rare) lists holding them."""
        if _type(data) is float and not math.isfinite(data):
            return {"$type": "float", "repr": _repr(data)}
        if _type(data) is list:
            return [self.floats(item) for item in data]
        return data


class ArgumentLoader(pickle.Unpickler):
    """Reads the checker's arguments; objects of the set-up cells come by name."""

    def __init__(self, data, setup):
        super().__init__(io.BytesIO(data))
        self.setup = setup

    def persistent_load(self, ref):
        kind, name = ref
        if kind == "tokenizer":
            from gptcourse import get_tokenizer

            return get_tokenizer()
        if kind == "setup" and name in self.setup:
            return self.setup[name]
        raise pickle.UnpicklingError(f"unknown reference {ref!r}")


class Runner:
    def __init__(self):
        import gptcourse  # noqa: F401  (imported before any notebook code runs)
        import torch  # noqa: F401

        # the student's namespace is a real __main__ module, as in a notebook
        self.main = types.ModuleType("__main__")
        self.namespace = self.main.__dict__
        self.namespace["__builtins__"] = builtins
        sys.modules["__main__"] = self.main
        self.setup = {}  # what the instructor's set-up cells bound, by name

    def handle(self, request):
        op = request.get("op")
        reply = {"id": request.get("id")}
        try:
            if op == "run":
                self.run_code(request.get("code", ""), request.get("kind"), reply)
            elif op == "describe":
                reply["names"] = self.describe(request.get("names", []))
            elif op == "get":
                name = request.get("name")
                if name not in self.namespace:
                    reply["error"] = f"{name} is not defined"
                else:
                    reply["value"] = Encoder().encode(self.namespace[name])
            elif op == "call":
                self.call(request, reply)
            else:
                reply["error"] = f"unknown request {op!r}"
        except TooLarge as problem:
            reply["error"] = _str(problem)
        except RecursionError:
            reply["error"] = "answer nested too deeply"
        return reply

    def run_code(self, code, kind, reply):
        before = dict(self.namespace)
        try:
            body, last = split_trailing_expression(strip_magics(code))
            _exec(body, self.namespace)
            if last is not None:
                value = _eval(last, self.namespace)
                if value is not None:
                    reply["result"] = _repr(value)[:RESULT_CAP]
            reply["status"] = "ok"
        except _BaseException as exc:  # SystemExit and KeyboardInterrupt included
            reply["status"] = "error"
            reply["error"] = short(exc)
        if kind == "setup":
            for name, value in self.namespace.items():
                if before.get(name, _MISSING) is not value:
                    self.setup[name] = value

    def describe(self, names):
        found = {}
        for name in names:
            if not _isinstance(name, _str) or name not in self.namespace:
                continue
            value = self.namespace[name]
            torch = sys.modules.get("torch")
            module_type = getattr(getattr(torch, "nn", None), "Module", ())
            is_callable = callable(value) and not _isinstance(value, module_type)
            found[name] = {"callable": bool(is_callable),
                           "module": _str(getattr(value, "__module__", "") or "")[:200],
                           "qualname": _str(getattr(value, "__qualname__", "") or "")[:200]}
        return found

    def call(self, request, reply):
        name = request.get("name")
        function = self.namespace.get(name)
        if function is None:
            reply["error"] = f"{name} is not defined"
            return
        try:
            args, kwargs = ArgumentLoader(base64.b64decode(request.get("args", "")),
                                          self.setup).load()
        except _BaseException as exc:
            reply["error"] = "the arguments could not be read: " + short(exc)
            return
        try:
            value = function(*args, **kwargs)
        except _BaseException as exc:
            ordinary = _isinstance(exc, Exception)  # not SystemExit or KeyboardInterrupt
            reply["exception"] = _type(exc).__name__ if ordinary else "RuntimeError"
            reply["message"] = _message(exc) if ordinary else short(exc)
            return
        reply["value"] = Encoder().encode(value)


def _message(exc):
    try:
        return _str(exc)[:MESSAGE_CAP]
    except _BaseException:
        return "(the exception's message could not be printed)"


_MISSING = object()


def read_requests():
    buffer = b""
    while True:
        chunk = _os_read(REQUEST_FD, 1 << 16)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield _loads(line)


def send(message):
    try:
        text = _dumps(message)
    except (ValueError, TypeError, RecursionError) as problem:
        text = _dumps({"id": message.get("id"), "error": "the answer could not be sent: "
                       + short(problem)})
    data = (text + "\n").encode("utf-8", "backslashreplace")
    while data:
        written = _os_write(REPLY_FD, data)
        data = data[written:]


_STREAMS = (sys.stdout, sys.stderr)  # the real ones, kept before any student code


def flush_streams():
    """Flush the real output streams (never a replacement object a submission installed)."""
    for stream in _STREAMS:
        try:
            stream.flush()
        except _BaseException:
            pass


def main():
    global REQUEST_FD, REPLY_FD
    REQUEST_FD, REPLY_FD = int(sys.argv[1]), int(sys.argv[2])
    work = os.getcwd()
    runner = Runner()
    sys.path.append(work)  # like a notebook: the student's own modules import, last
    send({"ready": True})
    for request in read_requests():
        reply = runner.handle(request)
        flush_streams()
        send(reply)


if __name__ == "__main__":
    main()
