"""`Runner`: the notebook's cells run in IPython's own shell, and the requests about them answered.

Cells run in IPython's ``InteractiveShell``, as in Jupyter: magics,
``display()``, ``get_ipython()``, ``_`` and shell escapes work. The value of a
cell's last expression comes back as its repr; its error as `short` words it.
The names the instructor's set-up cells bind are kept (`Runner.setup`): a
check's arguments may name them. A check's calls are answered in a forked child
(``check_forks.py``, whose `ForkedChecks` the Runner is).
"""

import base64
import builtins
import importlib
import os
import sys

from .changes import argument_changes, argument_marks
from .check_forks import ForkedChecks
from .encoding import ArgumentLoader, Encoder, TooLarge
from .shared import MESSAGE_CAP, short
from .snapshot import WRITABLE, read_only_mounts

_exec = builtins.exec  # kept before any notebook code runs, which could replace them
_compile = builtins.compile
_BaseException = BaseException
_type = type
_str = str
_isinstance = isinstance
_import_module = importlib.import_module

RESULT_CAP = 2_000  # characters of a trailing expression's repr kept
_MISSING = object()


def make_shell():
    """IPython's InteractiveShell, quiet where Jupyter would use other channels.

    The value of a cell's last expression is kept for the reply instead of being
    printed with an Out[n] prompt, and tracebacks are not printed: the driver
    reports the error itself.
    """
    from IPython.core.displayhook import DisplayHook
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class ResultHook(DisplayHook):
        result_text = None

        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            text = format_dict.get("text/plain")
            ResultHook.result_text = text if _isinstance(text, _str) else None

        def finish_displayhook(self):
            pass

    class Shell(InteractiveShell):
        displayhook_class = ResultHook

        def showtraceback(self, *args, **kwargs):
            pass

        def showsyntaxerror(self, *args, **kwargs):
            pass

        def _format_exception_for_storage(self, exception, *args, **kwargs):
            # what IPython keeps of a failed cell for its history, which is off here: its
            # verbose traceback cost about 20 ms per failing cell
            return {"ename": _type(exception).__name__, "evalue": "", "traceback": []}

        def enable_gui(self, gui=None):  # no event loop here: %matplotlib inline needs none
            pass

    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "nocolor"
    config.InteractiveShell.autocall = 0
    shell = Shell.instance(config=config)
    builtins.get_ipython = shell.get_ipython  # outside cells too, as in a Jupyter kernel
    return shell, ResultHook


class Runner(ForkedChecks):
    """The notebook's kernel: cells run in `shell`, their names in `namespace`."""

    def __init__(self, package):
        self.package = package  # the course package's name
        _import_module(package)  # the course package (torch with it, where it uses torch),
        # before any notebook code runs

        self.shell, self.hook = make_shell()
        self.namespace = self.shell.user_ns  # a real __main__ module's, as in a notebook
        self.setup = {}  # what the instructor's set-up cells bound, by name
        self.writable = WRITABLE + (os.getcwd(),)
        self.ending = []  # checks' children that answered in full and are being torn down
        self.warming = None  # a template's warm-up, running beside its set-up cells
        self.read_only = read_only_mounts()

    def handle(self, request):
        self.reap_ended()
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
                return self.call_in_child(request, reply)
            elif op == "end":  # a check that made no call ends: nothing to throw away
                reply["ended"] = True
            elif op == "file":
                self.write_file(request, reply)
            else:
                reply["error"] = f"unknown request {op!r}"
        except TooLarge as problem:
            reply["error"] = _str(problem)
        except RecursionError:
            reply["error"] = "answer nested too deeply"
        return reply

    def run_code(self, code, kind, reply):
        before = dict(self.namespace)
        self.hook.result_text = None
        try:
            result = self.shell.run_cell(code, store_history=True)
            error = result.error_before_exec or result.error_in_exec
        except _BaseException as exc:  # the shell itself failed (a hook the code installed)
            error = exc
        if error is not None:
            reply["status"] = "error"
            reply["error"] = short(error)
        else:
            reply["status"] = "ok"
            if self.hook.result_text is not None:
                reply["result"] = self.hook.result_text[:RESULT_CAP]
        if kind == "setup":
            for name, value in self.namespace.items():
                if before.get(name, _MISSING) is not value:
                    self.setup[name] = value
        elif star_imports_package(code, self.package):
            self.keep_own_functions(before)

    def keep_own_functions(self, before):
        """After `from <package> import *`: the functions the student had written stay theirs.

        In Jupyter the star import would bind the package's working function in
        their place; here the package's answers are stubs, so the student's own
        definition (already graded by its own checks) is kept instead.
        """
        for name, value in list(self.namespace.items()):
            old = before.get(name, _MISSING)
            if (old is not _MISSING and old is not value and callable(old)
                    and _from_package(value, self.package)
                    and not _from_package(old, self.package)
                    and getattr(value, "__name__", None) == name):
                self.namespace[name] = old

    def write_file(self, request, reply):
        """One of the student's own files (or the next part of it) into the working folder."""
        relative = os.path.normpath(_str(request.get("path", "")))
        if relative.startswith(("/", "..")) or relative == ".":
            reply["error"] = f"bad file name {relative!r}"
            return
        folder = os.path.dirname(relative)
        try:
            if folder:
                os.makedirs(folder, 0o777, exist_ok=True)
            with open(relative, "ab" if request.get("append") else "wb") as handle:
                handle.write(base64.b64decode(request.get("data", "")))
            os.chmod(relative, 0o666)
        except OSError as problem:
            reply["error"] = f"{relative} could not be written: {problem.strerror}"
            return
        reply["written"] = True

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
        replaced = {}  # name -> what it was before the check's definitions
        try:
            self._call(request, reply, replaced)
        finally:
            for name, value in replaced.items():
                if value is _MISSING:
                    self.namespace.pop(name, None)
                else:
                    self.namespace[name] = value

    def _call(self, request, reply, replaced):
        name = request.get("name")
        for source in request.get("overrides") or []:
            before = dict(self.namespace)
            try:  # the check's own definition of another answer, for this call only
                _exec(_compile(_str(source), "<check>", "exec"), self.namespace)
            except _BaseException as exc:
                reply["error"] = "the check's definitions could not be used: " + short(exc)
                return
            finally:
                for key, value in list(self.namespace.items()):
                    if before.get(key, _MISSING) is not value and key not in replaced:
                        replaced[key] = before.get(key, _MISSING)
        function = self.namespace.get(name)
        if function is None:
            reply["error"] = f"{name} is not defined"
            return
        try:
            loader = ArgumentLoader(base64.b64decode(request.get("args", "")), self.setup,
                                    self.package)
            args, kwargs = loader.load()
        except _BaseException as exc:
            reply["error"] = "the arguments could not be read: " + short(exc)
            return
        marks = argument_marks(args, kwargs, loader.by_name)
        try:
            value = function(*args, **kwargs)
        except _BaseException as exc:
            ordinary = _isinstance(exc, Exception)  # not SystemExit or KeyboardInterrupt
            reply["exception"] = _type(exc).__name__ if ordinary else "RuntimeError"
            reply["message"] = _message(exc) if ordinary else short(exc)
            value = _MISSING
        changes = argument_changes(marks)
        if changes:
            reply["changed"] = changes
        if value is not _MISSING:
            reply["value"] = Encoder().encode(value)


def _message(exc):
    try:
        return _str(exc)[:MESSAGE_CAP]
    except _BaseException:
        return "(the exception's message could not be printed)"


def star_imports_package(code, package):
    """Whether a cell's code has `from <the course package>[.module] import *`."""
    import re

    pattern = rf"^[ \t]*from[ \t]+{re.escape(package)}(\.\w+)*[ \t]+import[ \t]+\*"
    return re.search(pattern, _str(code), re.MULTILINE) is not None


def _from_package(value, package):
    try:
        module = getattr(value, "__module__", None)
    except _BaseException:
        return False
    return _isinstance(module, _str) and (module == package or module.startswith(package + "."))

