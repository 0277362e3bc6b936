"""Runs a notebook's set-up and answer cells inside the sandbox, then serves their values.

This file is started by the grader as a plain script (``python -I runner.py``)
inside the sandbox; it imports nothing from the grader package. Cells run in
IPython's own ``InteractiveShell``, as in Jupyter: magics, ``display()``,
``get_ipython()``, ``_`` and shell escapes work. The driver sends one JSON line
per request on the request pipe and reads one JSON line back on the reply pipe
(their descriptors are the first two arguments; the third names the course
package, imported before any notebook code runs):

    {"id": n, "op": "run", "kind": "setup" | "solution" | "extra", "code": "..."}
        -> {"id": n, "status": "ok" | "error", "error": "...", "result": "repr"}
    {"id": n, "op": "describe", "names": [...]}
        -> {"id": n, "names": {name: {"callable": bool, "module": str, "qualname": str}}}
    {"id": n, "op": "get", "name": "..."}        -> {"id": n, "value": encoded}
    {"id": n, "op": "call", "name": "...", "args": base64 pickle of (args, kwargs),
     "overrides": ["def ...", ...]}
        -> {"id": n, "value": encoded} or {"id": n, "exception": "TypeError", "message": "..."}
           (or, if the call ended the process, an exception with "restart": true when
           the check's calls changed files); either with "changed": [...] when the
           call changed a tensor or module it was given (see argument_changes)
    {"id": n, "op": "end"}   -> {"id": n, "ended": true} (the same "restart" flag)
    any request that cannot be answered -> {"id": n, "error": "..."}
    a call whose fork the student's code stopped -> {"id": n, "lost": "why"}
    a call whose fork failed for another reason -> {"id": n, "fault": "why"}

The runner decides nothing: the test cells never come here. They run in the
grader's own process (``checker.py``), which asks for the values the answers
define and calls the answers' functions through this channel. Whatever this
process replies is only ever treated as an answer to check, so student code
that takes over the channel can do no more than answer for itself.

A check's calls run in a forked child of this process that answers every
request until the check ends (``{"id": n, "op": "end"}`` -> ``{"id": n, "ended":
true}``) and is then thrown away: whatever the answer functions change in
memory (globals they record, module state, random number generators) is gone
before the next cell. A fork the system refuses, or one that ends before it
answers, is tried again (FORK_TRIES times, a busy machine or a process not yet
reaped can hold the limit for a moment); if it still fails, the reply says
whose doing that is: "lost" when the student's own processes hold the process
limit, "fault" otherwise (the grader then reports the notebook as not graded).
If the calls changed the sandbox's writable folders,
the reply to "end" says so (``"restart": true``) and the driver starts a fresh
kernel for the cells after the check. ``overrides`` are
definitions from the check itself (a reference version of another answer) that
the child binds before the call.

Printed output goes to file descriptors 1 and 2, which the driver reads and
caps; the runner flushes them before each reply.
"""

import base64
import builtins
import errno
import gc
import importlib
import io
import json
import math
import os
import pickle
import resource
import sys
import threading
import time

_os_read = os.read
_os_write = os.write
_fork = os.fork  # kept before any notebook code runs, which could replace os's functions
_pipe = os.pipe
_close = os.close
_waitpid = os.waitpid
_WNOHANG = os.WNOHANG
_gc_freeze = gc.freeze
_exit_now = os._exit
_lstat = os.lstat
_listdir = os.listdir
_dumps = json.dumps
_loads = json.loads
_exec = builtins.exec
_compile = builtins.compile
_BaseException = BaseException
_type = type
_str = str
_repr = repr
_isinstance = isinstance
_import_module = importlib.import_module
_sleep = time.sleep
_getrlimit = resource.getrlimit

REQUEST_FD, REPLY_FD = 3, 4  # set from the command line by main_inside_sandbox()
PACKAGE = ""  # the course package's name, set from the command line by main_inside_sandbox()
RESULT_CAP = 2_000  # characters of a trailing expression's repr kept
MESSAGE_CAP = 600
VALUE_CAP = 32 << 20  # characters of one encoded value
DEPTH_CAP = 64  # nesting of lists, tuples and dicts in a value
FORK_TRIES = 5  # forks for a check's calls, the waits between them doubling from 50 ms
FAILING_FORKS = 0  # for the grader's own tests: this many check forks fail as on a busy machine


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
        self.by_name = set()  # ids of the objects that came by name (not the check's own)

    def persistent_load(self, ref):
        kind, name = ref[0], ref[1]
        if kind == "storage":
            return _storage_from_bytes(name, ref[2])
        if kind == "tokenizer":
            value = _import_module(PACKAGE).get_tokenizer()
        elif kind == "setup" and name in self.setup:
            value = self.setup[name]
        else:
            raise pickle.UnpicklingError(f"unknown reference {ref!r}")
        self.by_name.add(id(value))
        return value


def _storage_from_bytes(dtype_name, data):
    """A tensor's storage of the checker's arguments, from its dtype's name and its bytes."""
    torch = sys.modules["torch"]
    dtype = getattr(torch, _str(dtype_name).rpartition(".")[2], None)
    if not _isinstance(dtype, torch.dtype) or _type(data) is not bytes:
        raise pickle.UnpicklingError("malformed storage")
    raw = torch.empty(len(data), dtype=torch.uint8)
    if data:
        raw.copy_(torch.frombuffer(bytearray(data), dtype=torch.uint8))
    return torch.storage.TypedStorage(wrap_storage=raw.untyped_storage(), dtype=dtype,
                                      _internal=True)


# ------------------------------------------------- what a call did to its arguments
#
# A check's arguments arrive here as copies, so a check that asks "did the answer
# change the model it was given?" would never see the change. Each tensor and
# module argument the check made itself is marked before the call and compared
# after it; the reply says what changed (which parameters are now one object,
# the new values), and the checker does the same to the check's own objects.

MARKED_BYTES_CAP = 64 << 20  # bytes of a call's arguments kept to compare; beyond: versions only


def argument_marks(args, kwargs, skip):
    """{where: (argument, mark)} of a call's tensor and module arguments not in `skip` (ids)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return {}
    budget = [MARKED_BYTES_CAP]
    places = list(enumerate(args)) + [(_str(k), v) for k, v in kwargs.items()]
    marks = {}
    for where, value in places:
        if id(value) in skip:
            continue
        try:
            mark = _mark(value, torch, budget)
        except _BaseException:
            continue
        if mark is not None:
            marks[where] = (value, mark)
    return marks


def argument_changes(marks):
    """[{"where": position or keyword, ...}] for each marked argument the call changed.

    A module: "shared", its parameters' names grouped by the object they are
    now (tying puts two names in one group), and "values" {name: encoded} of
    the parameters whose object or data changed. A tensor: its new "value".
    """
    torch = sys.modules.get("torch")
    changes = []
    for where, (value, before) in marks.items():
        try:
            after = _mark(value, torch, [MARKED_BYTES_CAP])
            if after == before:
                continue
            changes.append(_change(where, value, before, torch))
        except _BaseException:
            continue
    return changes


def _mark(value, torch, budget):
    if _isinstance(value, torch.nn.Module):
        return ("module", [(name, id(p), _tensor_mark(p, budget, torch))
                           for name, p in value.named_parameters(remove_duplicate=False)])
    if _isinstance(value, torch.Tensor):
        return ("tensor", _tensor_mark(value, budget, torch))
    return None


def _tensor_mark(tensor, budget, torch):
    """What identifies a tensor's data: its version counter, place, shape, type and bytes."""
    meta = tensor.device.type == "meta"
    size = tensor.numel() * tensor.element_size()
    content = None
    if not meta and size <= budget[0]:
        budget[0] -= size
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        content = flat.view(torch.uint8).numpy().tobytes() if size else b""
    return (tensor._version, 0 if meta else tensor.data_ptr(), tuple(tensor.shape),
            _str(tensor.dtype), content)


def _change(where, value, before, torch):
    """What changed in one argument, as argument_changes describes it."""
    encoder = Encoder()
    if before[0] == "tensor":
        return {"where": where, "value": encoder.encode(value.detach())}
    groups = {}
    now = list(value.named_parameters(remove_duplicate=False))
    for name, parameter in now:
        groups.setdefault(id(parameter), []).append(name)
    earlier = {name: (ident, mark) for name, ident, mark in before[1]}
    values = {}
    for name, parameter in now:
        if groups[id(parameter)][0] != name:
            continue  # another name of a parameter listed first: "shared" says so
        old = earlier.get(name)
        if old is None or old[0] != id(parameter) or not _same_data(old[1], parameter, torch):
            try:
                values[name] = encoder.encode(parameter.detach())
            except TooLarge:
                break  # the rest is not sent: the sharing still is
    return {"where": where, "shared": list(groups.values()), "values": values}


def _same_data(mark, tensor, torch):
    """Whether `tensor` holds what `mark` recorded (its bytes too, when they were kept)."""
    now = _tensor_mark(tensor, [MARKED_BYTES_CAP if mark[4] is not None else 0], torch)
    return now == mark


WRITABLE = ("/tmp", "/home", "/dev/shm")  # with the working folder: what a call may change
SNAPSHOT_CAP = 20_000  # entries listed per snapshot; more counts as changed


def writable_snapshot(folders, skip=()):
    """{path: (inode, size, mtime, mode)} of everything below `folders` (links not followed).

    `skip`: read-only folders bound below them (the Python environment where
    it lives below /home or /tmp), which no call can change.
    """
    entries = {}
    for top in folders:
        stack = [top]
        while stack:
            folder = stack.pop()
            try:
                names = _listdir(folder)
            except OSError:
                continue
            for name in names:
                path = os.path.join(folder, name)
                if path in skip:
                    continue
                try:
                    info = _lstat(path)
                except OSError:
                    continue
                entries[path] = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_mode)
                if len(entries) > SNAPSHOT_CAP:
                    return None
                if (info.st_mode & 0o170000) == 0o040000:
                    stack.append(path)
    return entries


def read_only_mounts():
    """The read-only mount points of this sandbox (its Python environment, the package)."""
    return {point for point, options in _mounts() if "ro" in options}


def warm_up():
    """Import what torch loads lazily on first use of the meta device, as a notebook's
    first such cell would: a template does it once, before its first fork, so the
    students forked later do not pay for it. A template does it in a thread of its own
    while its set-up cells run: the meta device is that thread's alone (torch's device
    modes are per thread) and draws no random numbers, so the cells' generator and
    tensors are as without it (tests/sandbox/test_warm_template.py)."""
    import torch

    with torch.device("meta"):
        torch.nn.Linear(2, 2)
        torch.triu(torch.ones(2, 2), diagonal=1)


MAPPED_MIN_BYTES = 1 << 20  # storages of the set-up at least this large move to a memory file


def map_setup_tensors(setup):
    """Move the large tensors the set-up cells made (a model's weights) into a sealed memory
    file, each storage mapped copy-on-write on its own; returns the bytes moved.

    Forking copies the page tables of a process's private memory, and a check forks
    the student's kernel: with a 124M model in it that is about 45 ms per fork. Pages
    of a file mapping that were never written are not copied by fork (the child maps
    them again on first use), so each fork of a template, and each check's fork of a
    student's kernel, becomes cheap. The values, shapes, strides, sharing between
    tensors (tied weights stay one storage) and each storage's size stay as they
    were; a write from a student's kernel copies the page for that kernel only, and
    the file itself is sealed against writes, so nothing reaches the template.
    """
    import ctypes
    import fcntl
    import mmap

    torch = sys.modules.get("torch")
    if torch is None or not hasattr(os, "memfd_create"):
        return 0
    module_type = torch.nn.Module
    tensors, seen = [], set()
    for value in list(setup.values()):
        if _isinstance(value, module_type):
            for module in value.modules():
                for group in (module._parameters, module._buffers):
                    tensors.extend(t for t in group.values() if t is not None)
        elif _type(value) in (torch.Tensor, torch.nn.Parameter):
            tensors.append(value)
    storages = {}  # storage data pointer -> (storage, [tensors on it])
    for tensor in tensors:
        if id(tensor) in seen or tensor.device.type != "cpu" or tensor.layout != torch.strided \
                or tensor.is_quantized:
            continue
        seen.add(id(tensor))
        storage = tensor.untyped_storage()
        if storage.nbytes() >= MAPPED_MIN_BYTES:
            storages.setdefault(storage.data_ptr(), (storage, []))[1].append(tensor)
    if not storages:
        return 0
    page = mmap.PAGESIZE
    placed, size = [], 0
    for storage, on_it in storages.values():
        placed.append((size, storage, on_it))
        size += -(-storage.nbytes() // page) * page
    fd = os.memfd_create("set-up tensors", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, size)
        for offset, storage, _ in placed:
            view = torch.empty(0, dtype=torch.uint8).set_(storage)
            os.pwrite(fd, memoryview(view.numpy()), offset)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK
                    | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        with torch.no_grad():
            for offset, storage, on_it in placed:
                length = storage.nbytes()
                mapped = mmap.mmap(fd, -(-length // page) * page, flags=mmap.MAP_PRIVATE,
                                   prot=mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)
                moved = torch.frombuffer(mapped, dtype=torch.uint8, count=length).untyped_storage()
                for tensor in on_it:
                    tensor.set_(moved, tensor.storage_offset(), tensor.size(), tensor.stride())
    finally:
        _close(fd)
    del tensors, storages, placed, storage, on_it
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)  # the old storages' memory back to the system
    except (OSError, AttributeError):
        pass
    return size


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


class Runner:
    def __init__(self):
        _import_module(PACKAGE)  # the course package, before any notebook code runs
        import torch  # noqa: F401

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
        elif star_imports_package(code):
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
                    and _from_package(value) and not _from_package(old)
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

    def call_in_child(self, request, reply):
        """Answer a check's calls in a forked child; returns the reply to send.

        The child answers this call and every request after it (more calls,
        values, descriptions) until the check ends ({"op": "end"}), then
        vanishes: within a check, the answers see each other's effects, as in
        the notebook; after it, nothing the calls changed remains.
        """
        flush_streams()
        before = writable_snapshot(self.writable, self.read_only)
        for attempt in range(FORK_TRIES):
            if attempt:
                _sleep(0.05 * 2 ** (attempt - 1))
            try:
                read_end, write_end = _pipe()
            except OSError as problem:
                return {"id": request.get("id"),
                        "lost": f"the check could not start ({problem.strerror})"}
            try:
                pid = fork_for_check()
            except OSError as problem:
                _close(read_end)
                _close(write_end)
                refused = problem
                continue
            if pid == 0:  # the child: answer until the check ends, then vanish
                code = 1
                try:
                    _close(read_end)
                    self.answer_check(request, write_end)
                    code = 0
                    _close(write_end)  # the parent goes on while this process is torn down
                finally:
                    _exit_now(code)
            _close(write_end)
            lines = _read_all(read_end).split(b"\n")
            _close(read_end)
            status = self.reap_or_defer(pid, any(line.startswith(b"ended ") for line in lines))
            if any(lines):
                break
            refused = None  # it ended before it answered anything: nothing of the check ran
        else:
            return fork_failure(request.get("id"), refused)
        working, ended = request.get("id"), None
        for line in lines:
            if line.startswith(b"working "):
                working = _loads(line[8:])
            elif line.startswith(b"ended "):
                ended = _loads(line[6:])
        if _isinstance(ended, dict) and ended.get("op") == "end":
            answer = {"id": ended.get("id"), "ended": True}
        elif _isinstance(ended, dict):  # the next request came without an "end": answer it here
            answer = self.handle(ended)
        else:  # the child died answering `working`
            answer = {"id": working, "exception": "RuntimeError", "message": _ended(status)}
        after = writable_snapshot(self.writable, self.read_only)
        if before is None or after != before:
            answer["restart"] = True
        return answer

    def reap_or_defer(self, pid, answered):
        """The wait status of a check's child `pid`. One that `answered` in full and is
        still being torn down is not waited for (0; reap_ended reaps it before the next
        request); any other is waited for, its status telling how it ended."""
        if answered:
            done, status = _waitpid(pid, _WNOHANG)
            if done:
                return status
            self.ending.append(pid)
            return 0
        return _waitpid(pid, 0)[1]

    def reap_ended(self):
        """Wait for the children of earlier checks, which had answered in full, to be gone.

        The reply that ends a check goes before its child is torn down, so the grader
        reads it while that happens; the next request waits for it, so that no cell
        and no fork ever finds a process of an ended check still counted."""
        while self.ending:
            try:
                _waitpid(self.ending[-1], 0)
            except ChildProcessError:
                pass
            self.ending.pop()

    def answer_check(self, request, parent):
        """In the check's child: answer requests until one ends the check."""
        requests = read_requests()
        while request is not None:
            if request.get("op") not in ("call", "get", "describe"):
                _os_write(parent, b"ended " + _dumps(request).encode() + b"\n")
                return
            _os_write(parent, b"working " + _dumps(request.get("id")).encode() + b"\n")
            if request.get("op") == "call":
                reply = {"id": request.get("id")}
                self.call(request, reply)
            else:
                reply = self.handle(request)
            flush_streams()
            send(reply)
            request = next(requests, None)

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
            loader = ArgumentLoader(base64.b64decode(request.get("args", "")), self.setup)
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


def _read_all(fd):
    """Every byte written on `fd` until its last writer closes it."""
    data = bytearray()
    while True:
        chunk = _os_read(fd, 1 << 16)
        if not chunk:
            return bytes(data)
        data += chunk


def _ended(status):
    """Plain words for how the process that answered a check's call ended."""
    during = "while a check called the function"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == 9:
            return f"kernel died (killed: by its own code, or by the memory limit) {during}"
        if number == 11:
            return f"kernel died (segmentation fault) {during}"
        return f"kernel died (signal {number}) {during}"
    return (f"kernel exited (exit status {os.WEXITSTATUS(status)}) {during}: the code "
            "ended the process")


def fork_for_check():
    """fork() for a check's calls; the grader's tests can make it fail (FAILING_FORKS)."""
    global FAILING_FORKS
    if FAILING_FORKS > 0:
        FAILING_FORKS -= 1
        raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
    return _fork()


def fork_failure(request_id, refused):
    """The reply to a call whose fork failed FORK_TRIES times (`refused`: the last OSError,
    None when the fork ended before it answered): whose doing it was, in words."""
    limit = _getrlimit(resource.RLIMIT_NPROC)[0]
    if _isinstance(refused, OSError) and refused.errno == errno.EAGAIN:
        held = own_tasks()
        if limit != resource.RLIM_INFINITY and held * 2 >= limit:
            return {"id": request_id,
                    "lost": f"the process limit ({limit} processes and threads) stopped the "
                            f"check's fork: the code's own processes hold {held} of them"}
    why = (f"the system refused it ({refused.strerror})" if refused is not None
           else "it ended before it could answer")
    return {"id": request_id, "fault": f"a check's fork failed {FORK_TRIES} times: {why}"}


def own_tasks():
    """Processes and threads this sandbox's /proc shows (its own: the others are hidden)."""
    count = 0
    for name in _listdir("/proc"):
        if name.isdigit():
            try:
                count += len(_listdir(f"/proc/{name}/task"))
            except OSError:
                continue
    return count


def _message(exc):
    try:
        return _str(exc)[:MESSAGE_CAP]
    except _BaseException:
        return "(the exception's message could not be printed)"


_MISSING = object()


def star_imports_package(code):
    """Whether a cell's code has `from <the course package>[.module] import *`."""
    import re

    pattern = rf"^[ \t]*from[ \t]+{re.escape(PACKAGE)}(\.\w+)*[ \t]+import[ \t]+\*"
    return re.search(pattern, _str(code), re.MULTILINE) is not None


def _from_package(value):
    try:
        module = getattr(value, "__module__", None)
    except _BaseException:
        return False
    return _isinstance(module, _str) and (module == PACKAGE or module.startswith(PACKAGE + "."))


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


def send(message, fd=None):
    try:
        text = _dumps(message)
    except (ValueError, TypeError, RecursionError) as problem:
        text = _dumps({"id": message.get("id"), "error": "the answer could not be sent: "
                       + short(problem)})
    data = (text + "\n").encode("utf-8", "backslashreplace")
    while data:
        written = _os_write(REPLY_FD if fd is None else fd, data)
        data = data[written:]


_STREAMS = (sys.stdout, sys.stderr)  # the real ones, kept before any student code


def flush_streams():
    """Flush the real output streams (never a replacement object a submission installed)."""
    for stream in _STREAMS:
        try:
            stream.flush()
        except _BaseException:
            pass


def serve(runner):
    """Answer requests until the driver closes the request pipe."""
    send({"ready": True})
    for request in read_requests():
        if request.get("op") == "template" and CONTROL_FD is not None:
            send({"id": request.get("id"), "template": True})
            serve_template(runner, CONTROL_FD)
            return
        reply = runner.handle(request)
        flush_streams()
        send(reply)


def main_inside_sandbox():
    global REQUEST_FD, REPLY_FD, PACKAGE, CONTROL_FD
    REQUEST_FD, REPLY_FD, PACKAGE = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    CONTROL_FD = int(sys.argv[4]) if len(sys.argv) > 4 else None
    work = os.getcwd()
    runner = Runner()
    if CONTROL_FD is not None:  # a template: warmed up while its set-up cells run
        runner.warming = threading.Thread(target=warm_up, name="warm-up")
        runner.warming.start()
    sys.path.append(work)  # like a notebook: the student's own modules import, last
    serve(runner)


# ---------------------------------------------------------------- the warm template
#
# A template is a runner that has imported torch and the course package and run
# the instructor's leading set-up cells, then only forks. Each fork enters new
# user, mount, PID, IPC, network and UTS namespaces, puts fresh in-memory folders
# over every writable place, drops every capability and becomes one student's
# runner: a fresh sandbox that starts warm. Nothing a student does reaches the
# template (its memory is copied on write, its folders are hidden, it is not
# dumpable and lives outside the student's PID namespace) or a later student.
#
#   driver -> template: {"spawn": n, "cpu_seconds": s, "tmpfs_mib": m, "file_mib": f,
#                        "max_processes": p, "failing_forks": k}
#                       with four descriptors: request, reply, stdout, stderr, and a
#                       fifth, a pipe the fork waits on for one byte after "spawned"
#                       (the driver first moves it into the student's own cgroups)
#   fork   -> driver:   {"spawned": n}    (the kernel adds the fork's process id)
#   template -> driver: {"exited": n, "status": code}  (128 + signal if killed)
#   driver -> template: {"attach": k} with one descriptor: another control channel,
#                       answered like the first (one per grading worker)

CONTROL_FD = None
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SANDBOX_HOME = "/home/student"  # inside the sandbox; the driver (command.py) uses these too
SANDBOX_WORK = SANDBOX_HOME + "/work"
FRESH = (("/tmp", "1777"), ("/home", "0755"), ("/dev/shm", "1777"))


def _libc():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def call(name, *args):
        if getattr(libc, name)(*args) != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"{name}: {os.strerror(number)}")

    return ctypes, libc, call


def serve_template(runner, control_fd):
    """Fork a fresh sandboxed runner for each spawn request; report how each ended.

    Requests come on the first control channel and on any channel attached
    through it (one per grading worker of the machine); each fork's end is
    reported on the channel that asked for it.
    """
    import select
    import signal
    import socket

    _, _, call = _libc()
    call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)  # no same-user ptrace or /proc/PID/mem
    first = socket.socket(fileno=control_fd)
    channels = [first]
    for fd in (REQUEST_FD, REPLY_FD):  # the template's own channel is not used again
        _close(fd)
    # a fork's end wakes the loop at once, so that the driver hears of it without delay
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
    runner.warming.join()  # once, before the first fork, so that no student loads these
    map_setup_tensors(runner.setup)
    # what the template made is never collected: a student's collection does not walk
    # it, and so copies none of its pages into the student's fork
    _gc_freeze()
    spawned = {}  # fork's pid -> (spawn number, channel that asked)
    while True:
        readable, _, _ = select.select(channels + [wake_read], [], [])
        if wake_read in readable:
            readable.remove(wake_read)
            while _read_nonblocking(wake_read):
                pass
        while spawned:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            code = os.waitstatus_to_exitcode(status)
            number, channel = spawned.pop(pid, (None, None))
            if channel is not None and channel in channels:
                try:
                    channel.send(_dumps({"exited": number,
                                         "status": 128 - code if code < 0 else code}).encode())
                except OSError:
                    pass
        for channel in readable:
            try:
                message, fds, _, _ = socket.recv_fds(channel, 1 << 16, 5)
            except OSError:
                message, fds = b"", []
            if not message:
                if channel is first:
                    os._exit(0)  # the driver is gone
                channels.remove(channel)  # a worker is gone: its forks end with their pipes
                channel.close()
                continue
            request = _loads(message)
            if "attach" in request and len(fds) == 1:
                channels.append(socket.socket(fileno=fds[0]))
                continue
            if len(fds) not in (4, 5):
                for fd in fds:
                    _close(fd)
                continue
            flush_streams()
            try:
                pid = _fork()
            except OSError:  # refused for now (the machine's process limit): the driver retries
                for fd in fds:
                    _close(fd)
                channel.send(_dumps({"exited": request.get("spawn"), "status": 126}).encode())
                continue
            if pid == 0:
                try:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    _close(wake_read)
                    _close(wake_write)
                    for other in channels:
                        if other is not channel:
                            other.close()
                    _become_student_sandbox(runner, channel, request, fds)
                except _BaseException as exc:
                    _os_write(2, f"the student's sandbox could not be made: {short(exc)}\n"
                              .encode())
                finally:
                    _exit_now(127)
            for fd in fds:
                _close(fd)
            spawned[pid] = (request.get("spawn"), channel)


def _read_nonblocking(fd):
    """What a non-blocking pipe holds now (b"" when it is empty)."""
    try:
        return _os_read(fd, 512)
    except BlockingIOError:
        return b""


def _become_student_sandbox(runner, control, request, fds):
    """In a fork of the template: new namespaces, fresh folders, no capabilities; then serve."""
    global FAILING_FORKS
    import signal

    ctypes, libc, call = _libc()
    call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    file_size = int(request.get("file_mib", 64)) << 20  # the template has no such limit
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    call("prctl", PR_SET_DUMPABLE, 1, 0, 0, 0)  # its /proc/self files become its own again
    uid, gid = os.geteuid(), os.getegid()
    call("unshare", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET
         | CLONE_NEWUTS)
    for name, text in (("setgroups", "deny"), ("uid_map", f"65534 {uid} 1"),
                       ("gid_map", f"65534 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    # the student's processes, counted in this new user namespace: the student's own
    processes = int(request.get("max_processes", 128))
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")  # under memory pressure, a student dies, not the template
    except OSError:
        pass
    call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)  # the student's processes cannot reach this one
    control.send(_dumps({"spawned": request.get("spawn")}).encode())
    control.close()
    if len(fds) == 5:  # the driver moves this process into the student's own cgroups first
        go = fds.pop()
        started = _os_read(go, 1)
        _close(go)
        if not started:
            _exit_now(125)  # the driver is gone
    _fresh_folders(call, int(request.get("tmpfs_mib", 128)) << 20)
    _drop_capabilities(ctypes, libc, call)
    pid = _fork()
    if pid == 0:  # process 1 of the new PID namespace: its end ends every process in it
        FAILING_FORKS = int(request.get("failing_forks") or 0)
        call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        call("prctl", PR_SET_DUMPABLE, 1, 0, 0, 0)  # an ordinary process among its own
        os.setsid()
        cpu = int(request.get("cpu_seconds") or 0)
        if cpu > 0:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        _take_descriptors(fds)
        os.chdir(SANDBOX_WORK)
        serve(runner)
        flush_streams()
        _exit_now(0)
    for fd in fds:
        _close(fd)
    _, status = _waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    _exit_now(128 - code if code < 0 else code)


def _mounts():
    """[(mount point, options)] of this mount namespace, from /proc/self/mountinfo."""
    import re

    found = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            found.append((point, fields[5].split(",")))
    return found


def _fresh_folders(call, size):
    """Empty in-memory folders over /tmp, /home, /dev/shm and the working folder.

    The read-only folders bound below them (the Python environment, the course
    package, where they live below /tmp or /home) are bound again on top.
    """
    tops = [top for top, _ in FRESH]
    kept = []
    for point, options in sorted(_mounts(), key=lambda pair: len(pair[0])):
        below = any(point.startswith(top + "/") for top in tops)
        if below and "ro" in options and not any(point.startswith(k + "/") for k, _ in kept):
            kept.append((point, os.open(point, os.O_PATH)))
    for top, mode in FRESH:
        call("mount", b"tmpfs", top.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
             f"size={size},mode={mode}".encode())
    for point, fd in kept:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(point, 0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(point), 0o755, exist_ok=True)
            _close(os.open(point, os.O_CREAT | os.O_WRONLY, 0o644))
        call("mount", f"/proc/self/fd/{fd}".encode(), point.encode(), None, MS_BIND | MS_REC,
             None)
        call("mount", None, point.encode(), None,
             MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
        _close(fd)
    os.makedirs(SANDBOX_HOME, exist_ok=True)
    os.chmod(SANDBOX_HOME, 0o1777)
    os.makedirs(SANDBOX_WORK, exist_ok=True)
    call("mount", b"tmpfs", SANDBOX_WORK.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
         f"size={size},mode=0777".encode())


def _drop_capabilities(ctypes, libc, call):
    """No capability left, now or after an exec: the namespaces' set-up is done."""
    for number in range(64):
        if libc.prctl(PR_CAPBSET_DROP, number, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    call("capset", ctypes.byref(Header(0x20080522, 0)), ctypes.byref((Data * 2)()))


def _take_descriptors(fds):
    """The spawn's pipes become fds 1 and 2 (output) and the request and reply channel."""
    global REQUEST_FD, REPLY_FD
    request, reply, out, err = (os.dup(fd) for fd in fds)  # above 4, out of the way
    for fd in fds:
        _close(fd)
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.dup2(request, 3)
    os.dup2(reply, 4)
    os.closerange(5, 1 << 16)
    REQUEST_FD, REPLY_FD = 3, 4
    sys.argv[1:] = ["3", "4"]  # as a runner started with these descriptors sees them


if __name__ == "__main__":
    main_inside_sandbox()
