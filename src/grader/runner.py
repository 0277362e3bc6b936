"""Runs one notebook's cells inside the sandbox, one cell per request.

This file is started by the grader as a plain script (``python -I runner.py``)
inside the sandbox; it imports nothing from the grader package. The driver
sends one JSON line per cell on the request pipe and reads exactly one JSON
line per cell back on the reply pipe (their descriptors are the two arguments):

    request  {"kind": "setup" | "solution" | "test", "code": "...",
              "cell": grade_id or null, "nonce": "random hex"}
    reply    {"nonce": ..., "cell": ..., "status": "ok" | "passed" | "error"
              | "failed", "error": "short message",
              "result": repr of a trailing expression (solution cells only)}

Printed output goes to file descriptors 1 and 2, which the driver reads and
caps; the runner flushes them before each reply.

Before every test cell the runner puts back what it snapshotted before any
student code ran (builtins, the torch and gptcourse modules, key torch
classes, sys hooks and streams, signal handlers) and runs the test in a copy
of the namespace whose builtins are a fresh pristine dict, so a monkeypatch
made by a solution cell cannot change what a test checks. A test counts as
passed only when ``exec`` returned normally; the reply then carries the nonce
the driver sent with that very request.
"""

import ast
import builtins
import json
import os
import signal
import sys
import types
import _thread

# Bound once, before any student code runs, so rebinding os.write or json.dumps
# later cannot change how the runner talks to the driver.
_os_read = os.read
_os_write = os.write
_dumps = json.dumps
_loads = json.loads
_exec = builtins.exec
_compile = builtins.compile
_BaseException = BaseException
_type = type
_str = str
_dict = dict
_setattr = setattr
_delattr = delattr
_isinstance = isinstance
_repr = repr
_eval = eval
_callable = callable
_thread_count = _thread._count
_settrace, _setprofile = sys.settrace, sys.setprofile
_alarm, _setitimer = signal.alarm, signal.setitimer
_signal, _getsignal = signal.signal, signal.getsignal

REQUEST_FD = int(sys.argv[1]) if len(sys.argv) > 2 else 3
REPLY_FD = int(sys.argv[2]) if len(sys.argv) > 2 else 4
RESULT_CAP = 2_000  # characters of a trailing expression's repr kept
MESSAGE_CAP = 600


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


class Pristine:
    """What the interpreter looked like before any student code ran."""

    MODULES = ("builtins", "torch", "torch.nn", "torch.nn.functional", "torch.testing",
               "gptcourse", "math", "operator", "numpy", "json", "os", "sys", "types",
               "functools", "itertools", "collections", "inspect", "warnings", "threading",
               "signal", "io", "ast", "types", "_thread")
    CLASSES = ("torch.Tensor", "torch.nn.Module", "torch.nn.Parameter", "torch.nn.Linear",
               "torch.nn.Embedding", "torch.Size")
    SYS_ATTRS = ("stdout", "stderr", "stdin", "displayhook", "excepthook",
                 "breakpointhook", "unraisablehook", "meta_path", "path_hooks")

    def __init__(self):
        import gptcourse  # noqa: F401  (imported so its module dict is snapshotted)
        import torch  # noqa: F401

        self.modules = {}
        for name in list(sys.modules):
            if name in self.MODULES or name.startswith(("torch.", "gptcourse.")):
                module = sys.modules[name]
                if module is not None and hasattr(module, "__dict__"):
                    self.modules[name] = (module, _dict(module.__dict__))
        self.classes = []
        for dotted in self.CLASSES:
            owner, _, attr = dotted.rpartition(".")
            cls = getattr(sys.modules[owner], attr)
            self.classes.append((cls, _dict(cls.__dict__)))
        self.builtins = _dict(builtins.__dict__)
        self.sys_attrs = {name: getattr(sys, name) for name in self.SYS_ATTRS}
        self.sys_attrs["meta_path"] = list(sys.meta_path)
        self.sys_attrs["path_hooks"] = list(sys.path_hooks)
        self.signals = {}
        for number in range(1, signal.NSIG):
            try:
                self.signals[number] = signal.getsignal(number)
            except (ValueError, OSError):
                pass

    def restore(self):
        # the sys module first: the calls below must reach the real functions
        for name, value in self.sys_attrs.items():
            if name in ("meta_path", "path_hooks"):
                getattr(sys, name)[:] = value
            else:
                _setattr(sys, name, value)
        for name, (module, saved) in self.modules.items():
            sys.modules[name] = module
            current = module.__dict__
            for key, value in saved.items():
                if current.get(key, _MISSING) is not value:
                    current[key] = value
            for key in [k for k in current if k not in saved]:
                if key.startswith("__") or not _isinstance(current[key], types.ModuleType):
                    del current[key]
        for cls, saved in self.classes:
            current = _dict(cls.__dict__)
            for key, value in saved.items():
                if current.get(key, _MISSING) is not value:
                    try:
                        _setattr(cls, key, value)
                    except (TypeError, AttributeError):
                        pass
            for key in [k for k in current if k not in saved]:
                try:
                    _delattr(cls, key)
                except (TypeError, AttributeError):
                    pass
        _RUNNER_BUSY.append(True)
        try:
            _settrace(None)
            _setprofile(None)
        finally:
            _RUNNER_BUSY.pop()
        _alarm(0)
        for timer in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF):
            _setitimer(timer, 0)
        for number, handler in self.signals.items():
            try:
                if _getsignal(number) is not handler and handler is not None:
                    _signal(number, handler)
            except (ValueError, OSError, TypeError):
                pass


_MISSING = object()
_RUNNER_BUSY = []  # non-empty while the runner itself makes a call the tripwire watches
_IN_TEST = []  # non-empty while a test cell runs



class Runner:
    def __init__(self):
        self.pristine = Pristine()
        self.threads_at_start = _thread_count()
        # the student's namespace is a real __main__ module, as in a notebook
        self.main = types.ModuleType("__main__")
        self.namespace = self.main.__dict__
        self.namespace["__builtins__"] = builtins
        sys.modules["__main__"] = self.main
        # names bound by the instructor's own cells to modules, classes and functions:
        # put back before each test so `torch = Fake()` in an answer changes nothing
        self.instructor_bindings = {}

    def run(self, request):
        kind = request.get("kind")
        code = request.get("code", "")
        reply = {"nonce": request.get("nonce"), "cell": request.get("cell")}
        if kind == "test":
            self.run_test(code, reply)
        else:
            self.run_code(code, kind, reply)
        return reply

    def run_code(self, code, kind, reply):
        before = _dict(self.namespace)
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
                if before.get(name, _MISSING) is not value and callable_or_module(value):
                    self.instructor_bindings[name] = value

    def run_test(self, code, reply):
        if _thread_count() > self.threads_at_start:
            reply["status"] = "failed"
            reply["error"] = ("not run: threads started by the submission were still running, "
                              "so the check could not be trusted")
            return
        self.pristine.restore()
        sys.modules["__main__"] = self.main
        namespace = _dict(self.namespace)
        for name in [k for k in namespace if k in self.pristine.builtins and k != "__builtins__"]:
            del namespace[name]  # an answer's `isinstance = ...` must not reach the test
        namespace.update(self.instructor_bindings)
        namespace["__builtins__"] = _dict(self.pristine.builtins)
        passed = False
        _IN_TEST.append(True)
        try:
            _exec(_compile(code, "<test>", "exec"), namespace)
            passed = True
        except _BaseException as exc:
            reply["error"] = short(exc)
        finally:
            _IN_TEST.clear()
        if passed and _thread_count() > self.threads_at_start:
            passed = False
            reply["error"] = "the code called by this check left threads running"
        reply["status"] = "passed" if passed else "failed"
        for name, value in namespace.items():
            if name not in self.namespace and name != "__builtins__":
                self.namespace[name] = value


def callable_or_module(value):
    return _isinstance(value, (types.ModuleType, type)) or _callable(value)


# Events that an answer never needs but that reaching into the runner does: with
# them a submission could find the runner's frames or memory and forge a reply.
TRIPWIRE_EVENTS = {
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
    "sys.addaudithook", "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle",
    "ctypes.addressof", "ctypes.string_at", "ctypes.wstring_at", "ctypes.cdata",
    "ctypes.cdata/buffer", "ctypes.call_function", "ctypes.PyObj_FromPtr", "ctypes.set_errno",
}
RUNNER_FILE = __file__


def install_tripwire():
    """Report (once, straight to the driver) any attempt to inspect the grader itself.

    An audit hook cannot be removed once added; it is added after torch and
    gptcourse are imported, so only code run for the notebook can trigger it.
    """
    fired, busy = [], []

    def hook(event, args, _write=_os_write, _dumps=_dumps, _fired=fired, _busy=busy,
             _fd=REPLY_FD, _type=_type, _quiet=_RUNNER_BUSY, _in_test=_IN_TEST):
        if _busy or _fired or _quiet:  # the runner's own calls; events raised in here
            return
        _busy.append(True)
        try:
            reason = None
            if event in TRIPWIRE_EVENTS:
                reason = event
            elif event in ("sys.settrace", "sys.setprofile") and _in_test:
                # (before a test the runner removes any trace function a cell set)
                reason = "a trace function"
            elif event == "sys._getframe" and args and args[0].f_code.co_filename == RUNNER_FILE:
                reason = "sys._getframe"
            elif event == "object.__getattr__" and len(args) == 2 and args[1] == "tb_frame":
                if args[0].tb_frame.f_code.co_filename == RUNNER_FILE:
                    reason = "traceback frames"
            elif event == "object.__setattr__" and args and _type(args[0]).__name__ == "frame":
                reason = "editing a frame"
            if reason is not None:
                _fired.append(reason)
                _write(_fd, (_dumps({"tamper": reason}) + "\n").encode())
        finally:
            _busy.pop()

    sys.addaudithook(hook)


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
    data = (_dumps(message) + "\n").encode()
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


def integrity_check():
    """A function that says whether the runner's own code and globals are still as they were.

    It holds its snapshot in a closure and is kept in a local variable of
    `main`, out of reach of a simple `globals()` or class patch.
    """
    module = _dict(globals())
    classes = [(cls, _dict(cls.__dict__)) for cls in (Runner, Pristine)]
    codes = [(f, f.__code__) for f in module.values() if _type(f).__name__ == "function"]
    codes += [(f, f.__code__) for _, d in classes for f in d.values()
              if _type(f).__name__ == "function"]
    namespace = globals()

    def intact(_module=module, _classes=classes, _codes=codes, _namespace=namespace):
        if any(_namespace.get(k, _MISSING) is not v for k, v in _module.items()):
            return False
        for cls, saved in _classes:
            current = cls.__dict__
            if len(current) != len(saved) or any(current.get(k) is not v for k, v in saved.items()):
                return False
        return all(f.__code__ is code for f, code in _codes)

    return intact


def main():
    work = os.getcwd()
    runner = Runner()
    sys.path.append(work)  # like a notebook: the student's own modules import, last
    intact = integrity_check()
    write, dumps, fd = _os_write, _dumps, REPLY_FD
    install_tripwire()
    send({"ready": True})
    reported = False
    for request in read_requests():
        reply = runner.run(request)
        flush_streams()
        if not reported and not intact():
            reported = True
            write(fd, (dumps({"tamper": "changing the runner"}) + "\n").encode())
        send(reply)


if __name__ == "__main__":
    main()
