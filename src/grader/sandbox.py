"""The sandboxed kernel: one bubblewrap process per notebook, driven cell by cell.

The driver (this module, running as the instructor) never executes student
code. It starts ``runner.py`` inside bubblewrap with no network, a private
process, IPC and user namespace (uid 65534, no capabilities), a read-only view
of the Python environment and of the ``gptcourse`` package only, and a
writable working directory holding a copy of the student's own files. Limits
on address space, CPU seconds and file size are set before the sandbox starts;
the wall-clock limit per cell is enforced here.
"""

import base64
import importlib.util
import json
import os
import resource
import select
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .course import SandboxGrader
from .files import owner_gone, owner_tag, tagged_folder
from .runner import MESSAGE_CAP, SANDBOX_HOME, SANDBOX_WORK  # one definition each

RUNNER = Path(__file__).with_name("runner.py")
SANDBOX_RUNNER = "/opt/grader/runner.py"
OUTPUT_CAP = 20_000  # bytes of stdout and of stderr kept per cell
REQUEST_CAP = 16 << 20  # bytes of one request to the sandbox
REPLY_CAP = 40 << 20  # bytes of one reply line; more is garbage
START_TIMEOUT = 60  # seconds for Python, torch and gptcourse to import
NOBODY = 65534  # the uid student code sees inside a user namespace


@dataclass
class Limits:
    """Resource limits for one sandboxed kernel (defaults: c.SandboxGrader's, course.py)."""

    timeout: float  # wall-clock seconds per cell (c.Execute.timeout)
    memory_mib: int = SandboxGrader.default("memory_mib")  # the sandbox's processes together
    file_mib: int = SandboxGrader.default("file_mib")  # largest file the kernel may write
    tmpfs_mib: int = SandboxGrader.default("tmpfs_mib")  # each writable in-memory folder
    max_processes: int = SandboxGrader.default("max_processes")  # processes and threads
    cpu_seconds: int = 0  # CPU seconds for the whole kernel; 0: derived from the cell count


@dataclass
class CellOutcome:
    """What happened to one cell, decided by the driver."""

    status: str  # ok | error | passed | failed | timeout | died | garbled
    message: str = ""
    stdout: str = ""
    stderr: str = ""
    result: str | None = None


def bwrap_available():
    return shutil.which("bwrap") is not None


def _readonly_system_binds():
    """Bind /usr and the usual top-level links or folders read-only."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in ("ld.so.cache", "localtime", "nsswitch.conf"):
        path = Path("/etc") / name
        if path.exists():
            args += ["--ro-bind", str(path), str(path)]
    return args


def gptcourse_location():
    """The folder of the installed gptcourse package, found without importing torch."""
    spec = importlib.util.find_spec("gptcourse")
    if spec is None or not spec.submodule_search_locations:
        raise SandboxError("the gptcourse package is not installed in this environment")
    return list(spec.submodule_search_locations)[0]


def _with_parents(destination, made):
    """--dir arguments creating the missing parents of `destination`, readable by anyone."""
    args = []
    parts = Path(destination).parts
    for depth in range(2, len(parts)):
        parent = str(Path(*parts[:depth]))
        if parent not in made and not parent.startswith("/usr"):
            made.add(parent)
            args += ["--perms", "0755", "--dir", parent]
    return args


def _python_binds(package_copy=None):
    """The interpreter, the environment's site-packages and the gptcourse package, read-only.

    With `package_copy` (see sandboxed_package), that copy is bound in the
    package's place, on top of the environment.
    """
    args, made, seen = [], set(), set()

    def bind(source, destination):
        args.extend(_with_parents(destination, made))
        args.extend(["--ro-bind", source, destination])
        made.add(destination)

    for prefix in (sys.base_prefix, sys.prefix):
        real = os.path.realpath(prefix)
        if real in seen or real.startswith("/usr/"):
            continue
        seen.add(real)
        bind(real, real)
        if prefix != real:
            bind(real, prefix)
    package = Path(gptcourse_location()).resolve()
    if package_copy:
        bind(str(package_copy), str(package))
    elif not any(str(package).startswith(s + os.sep) for s in seen):
        bind(str(package), str(package))
    return args


def sandbox_uid():
    """The unprivileged uid (and gid) this worker's sandboxes run as.

    Each grading worker has a uid of its own, outside the range of real
    accounts, so the process limit of one sandbox never affects another
    student graded at the same time.
    """
    if privilege_mode() == "userns":
        return NOBODY
    return 3_000_000 + os.getpid() % 1_000_000


def privilege_mode():
    """How the sandbox drops privileges.

    As root (the usual grader account on a course server) bubblewrap needs no
    user namespace: the runner is started through `setpriv` as the real,
    unprivileged uid 65534, so Linux also enforces the process limit. Any
    other user gets a user namespace in which it appears as uid 65534.
    """
    if os.geteuid() == 0 and shutil.which("setpriv"):
        return "setpriv"
    return "userns"


def sandbox_command(workdir, request_fd, reply_fd, tmpfs_mib, python=None, files=(),
                    package_copy=None, control_fd=None):
    """The bwrap command line that runs the runner in a copy of the student's folder.

    The runner reads requests from `request_fd` and answers on `reply_fd`,
    two pipe ends the sandbox inherits. `files` are (file descriptor, path
    relative to the working folder) pairs, the student's files, which bwrap
    copies into the working folder. Every writable folder (the working folder,
    /tmp, /home, /dev/shm) is an in-memory file system of `tmpfs_mib` MiB
    (the working folder also has room for the copied files), so nothing the
    student's code writes reaches the host's disk or outgrows its limit.
    `workdir` on the host is never visible inside the sandbox. With
    `control_fd` the runner can become a warm template (see Template).
    """
    python = python or sys.executable
    mode = privilege_mode()
    args = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--hostname", "jupyter", "--clearenv"]
    if mode == "userns":
        args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        if control_fd is None:  # a template's forks make namespaces of their own
            args += ["--disable-userns"]
        args += ["--cap-drop", "ALL"]
    for key, value in _environment(python).items():
        args += ["--setenv", key, value]
    size = str(tmpfs_mib << 20)
    copied = sum(_file_size(fd) for fd, _ in files)
    # the empty in-memory folders first, so that an environment or package that
    # lives below /tmp or /home on the host is bound on top of them, not hidden
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm",
             "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
             "--perms", "0755", "--size", size, "--tmpfs", "/home"]
    args += _readonly_system_binds() + _python_binds(package_copy)
    args += ["--perms", "1777", "--dir", SANDBOX_HOME,
             "--perms", "0777", "--size", str(copied + (tmpfs_mib << 20)),
             "--tmpfs", SANDBOX_WORK]
    args += _student_file_args(files)
    args += ["--perms", "0755", "--dir", os.path.dirname(SANDBOX_RUNNER),
             "--ro-bind", str(RUNNER), SANDBOX_RUNNER, "--chdir", SANDBOX_WORK,
             "--remount-ro", "/"]
    if mode == "setpriv":
        uid = sandbox_uid()
        args += [shutil.which("setpriv"), f"--reuid={uid}", f"--regid={uid}",
                 "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    # -I: ignore PYTHON* variables, the user site and the script's folder, so a
    # planted sitecustomize.py or usercustomize.py in the working folder is never imported
    args += [python, "-I", "-X", "utf8", SANDBOX_RUNNER, str(request_fd), str(reply_fd)]
    if control_fd is not None:
        args.append(str(control_fd))
    return args


def _environment(python):
    """The only environment variables inside the sandbox."""
    return {
        "HOME": SANDBOX_HOME,
        "USER": "student",
        "LOGNAME": "student",
        "PATH": os.path.dirname(python) + ":/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "IPYTHONDIR": SANDBOX_HOME + "/.ipython",
    }


def _student_file_args(files):
    """bwrap arguments that copy the student's files (fd, relative path) into the working
    folder, making their folders first."""
    args, made = [], set()
    for fd, relative in files:
        parts = Path(relative).parts
        for depth in range(1, len(parts)):
            folder = os.path.join(SANDBOX_WORK, *parts[:depth])
            if folder not in made:
                made.add(folder)
                args += ["--perms", "0777", "--dir", folder]
        args += ["--perms", "0666", "--file", str(fd), os.path.join(SANDBOX_WORK, relative)]
    return args


CGROUP_ROOT = "/sys/fs/cgroup"


class SandboxCgroups:
    """Memory and process limits for a whole sandbox: the kernel and every process it starts.

    Uses the cgroup v1 `memory` and `pids` controllers where they are mounted
    (as on these course servers), else cgroup v2 where this process's cgroup
    delegates `memory` and `pids`. `available()` says which, or why neither;
    without cgroups only the per-process limits (address space, and the process
    count of the sandbox's user) apply.
    """

    def __init__(self, memory_bytes, max_processes):
        self.memory_bytes, self.max_processes = memory_bytes, max_processes
        self.paths = []

    @staticmethod
    def own_groups():
        """{controller: folder of this process's cgroup} for the usable controllers."""
        try:
            with open("/proc/self/cgroup", encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return {}
        found = {}
        for line in lines:
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(","):
                folder = os.path.join(CGROUP_ROOT, name, path.lstrip("/"))
                if name in ("memory", "pids") and os.access(folder, os.W_OK):
                    found[name] = folder
            if controllers == "" and "memory" not in found:  # cgroup v2
                for mount in (CGROUP_ROOT, os.path.join(CGROUP_ROOT, "unified")):
                    folder = os.path.join(mount, path.lstrip("/"))
                    try:
                        with open(os.path.join(folder, "cgroup.subtree_control")) as handle:
                            delegated = handle.read().split()
                    except OSError:
                        continue
                    if {"memory", "pids"} <= set(delegated) and os.access(folder, os.W_OK):
                        found = {"v2": folder}
                        break
        return found if ("memory" in found and "pids" in found) or "v2" in found else {}

    @classmethod
    def available(cls):
        """(True, 'cgroup v1 memory and pids') or (False, the reason) on this machine."""
        groups = cls.own_groups()
        if "v2" in groups:
            return True, "cgroup v2 memory and pids"
        if groups:
            return True, "cgroup v1 memory and pids"
        return False, ("no writable cgroup with the memory and pids controllers (run the "
                       "grader as root, or delegate them to its cgroup)")

    def create(self, name):
        """Make the sandbox's groups; False when cgroups are not available."""
        groups = self.own_groups()
        settings = ({"v2": {"memory.max": self.memory_bytes, "memory.swap.max": 0,
                            "pids.max": self.max_processes}} if "v2" in groups else
                    {"memory": {"memory.limit_in_bytes": self.memory_bytes},
                     "pids": {"pids.max": self.max_processes}})
        try:
            for controller, values in settings.items():
                folder = os.path.join(groups[controller], name)
                os.makedirs(folder, exist_ok=True)
                self.paths.append(folder)
                for key, value in values.items():
                    target = os.path.join(folder, key)
                    if os.path.exists(target):
                        with open(target, "w") as handle:
                            handle.write(str(value))
        except (KeyError, OSError):
            self.remove()
            return False
        return True

    def join(self):
        """Move the calling process into the groups (run in the child before exec)."""
        for folder in self.paths:
            with open(os.path.join(folder, "cgroup.procs"), "w") as handle:
                handle.write(str(os.getpid()))

    @classmethod
    def remove_stale(cls):
        """Remove the groups of graders that are no longer running; returns their folders."""
        removed = []
        for folder in set(cls.own_groups().values()):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                parts = name.split("-")  # grader, host, pid, start, number (see Kernel.start)
                if len(parts) == 5 and parts[0] == "grader" and owner_gone("-".join(parts[1:4])):
                    stale = cls(0, 0)
                    stale.paths = [os.path.join(folder, name)]
                    stale.remove()
                    removed.append(os.path.join(folder, name))
        return removed

    def hit_memory_limit(self, since=0):
        """Whether the groups reached their memory limit (more often than `since` times)."""
        return self.memory_limit_events() > since

    def memory_limit_events(self):
        count = 0
        for folder in self.paths:
            for name in ("memory.failcnt", "memory.events"):
                try:
                    with open(os.path.join(folder, name), encoding="utf-8") as handle:
                        text = handle.read()
                except OSError:
                    continue
                if name == "memory.failcnt" and text.strip().isdigit():
                    count += int(text.strip())
                if name == "memory.events":
                    count += sum(int(line.split()[1]) for line in text.splitlines()
                                 if len(line.split()) == 2 and line.split()[0] in ("oom_kill", "max"))
        return count

    def remove(self):
        """Kill what is left in the groups and remove them."""
        for folder in self.paths:
            for _ in range(50):
                try:
                    with open(os.path.join(folder, "cgroup.procs"), encoding="utf-8") as handle:
                        pids = [int(x) for x in handle.read().split()]
                except OSError:
                    pids = []
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.paths = []


def sandboxed_package(blocked, package=None, root=None):
    """A copy of the course package in which the functions in `blocked` are stubs.

    The functions an assignment asks students to write (and those that would
    compute their answers) raise "write your own" in the sandbox: their real
    code is not in the copy at all, so no alias, wrapper, reload or copy of a
    code object brings it back. Everything else is the package unchanged.
    Returns the copy's folder (made once per set of names and process).
    """
    package = Path(package or gptcourse_location())
    key = (str(package), tuple(sorted(blocked)), root)
    if key in _PACKAGE_COPIES and os.path.isdir(_PACKAGE_COPIES[key]):
        return _PACKAGE_COPIES[key]
    target = os.path.join(tagged_folder("package", root), package.name)
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for path in Path(target).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        stubbed = _stub_functions(text, set(blocked), package.name)
        if stubbed != text:
            path.write_text(stubbed, encoding="utf-8")
    os.chmod(os.path.dirname(target), 0o755)
    for directory, _, names in os.walk(target):
        os.chmod(directory, 0o755)
        for name in names:
            os.chmod(os.path.join(directory, name), 0o644)
    _PACKAGE_COPIES[key] = target
    return target


_PACKAGE_COPIES = {}


def _stub_functions(text, blocked, package_name):
    """`text` with every top-level function named in `blocked` replaced by a stub."""
    import ast

    tree = ast.parse(text)
    changed = False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in blocked:
            message = (f"{package_name}.{node.name} is not available while your homework is "
                       f"graded: write your own {node.name}")
            # not NotImplementedError, which a check may read as "not answered yet"
            node.body = [ast.Raise(exc=ast.Call(func=ast.Name("RuntimeError", ast.Load()),
                                                args=[ast.Constant(message)], keywords=[]),
                                   cause=None)]
            node.decorator_list = []
            changed = True
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n" if changed else text


class Kernel:
    """One sandboxed runner process, driven with numbered requests (see ``runner.py``).

    `run_cell` sends a cell and decides what happened; `request` sends any
    request and waits, at most its timeout, for the matching reply.
    """

    def __init__(self, workdir, limits, package_copy=None, control=False):
        self.limits = limits
        self.workdir = workdir
        self.package_copy = package_copy
        self.control = control  # a channel for a template's forks (see Template)
        self.control_socket = None
        self.process = None
        self.cgroups = None
        self.dirty = False  # a check's call changed the sandbox's files: start afresh
        os.chmod(workdir, 0o700)  # only the driver reads it: the sandbox gets copies

    def _open_student_files(self):
        """(fd, relative path) of each regular file in the working folder, opened read-only."""
        opened = []
        for directory, subdirs, names in os.walk(self.workdir, followlinks=False):
            subdirs.sort()
            for name in sorted(names):
                path = os.path.join(directory, name)
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                except OSError:
                    continue
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    os.close(fd)
                    continue
                opened.append((fd, os.path.relpath(path, self.workdir)))
        return opened

    def _set_limits(self, cpu_seconds):
        if self.cgroups is not None:
            self.cgroups.join()
        memory = self.limits.memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if cpu_seconds is not None:  # a template runs no student code: each fork sets its own
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        size = self.limits.file_mib << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
        resource.setrlimit(resource.RLIMIT_NPROC, (self.limits.max_processes,) * 2)

    def start(self, cpu_seconds):
        cgroups = SandboxCgroups(self.limits.memory_mib << 20, self.limits.max_processes)
        self.cgroups = cgroups if cgroups.create(f"grader-{owner_tag()}-{id(self)}") else None
        request_read, self.request_write = os.pipe()
        self.reply_read, reply_write = os.pipe()
        files = self._open_student_files()
        extra = []
        if self.control:
            self.control_socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self.control_socket.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            extra = [theirs.detach()]
        try:
            self.process = subprocess.Popen(
                sandbox_command(self.workdir, request_read, reply_write, files=files,
                                tmpfs_mib=self.limits.tmpfs_mib,
                                package_copy=self.package_copy,
                                control_fd=extra[0] if extra else None),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                preexec_fn=lambda: self._set_limits(cpu_seconds),
                pass_fds=(request_read, reply_write, *(fd for fd, _ in files), *extra),
                start_new_session=True)
        finally:
            for fd in (request_read, reply_write, *(fd for fd, _ in files), *extra):
                os.close(fd)
        self.buffers = {"reply": b""}
        for stream in (self.process.stdout, self.process.stderr):
            os.set_blocking(stream.fileno(), False)
        os.set_blocking(self.reply_read, False)
        os.set_blocking(self.request_write, False)  # every write is bounded by a deadline
        ready = self._handshake(START_TIMEOUT)
        if ready.status != "ok":
            self.kill()
            raise SandboxError(f"the sandbox did not start: {ready.message} {ready.stderr[-2000:]}")

    def _drain_all(self, streams, dropped):
        for fd, (buffer, index) in streams.items():
            _drain(fd, buffer, index, dropped)

    def _death_reason(self):
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the kernel stopped answering"
        if self.cgroups is not None and self.cgroups.hit_memory_limit():
            return (f"kernel died (out of memory: the sandbox may use {self.limits.memory_mib} "
                    "MiB in all, its processes together)")
        return death_reason(code, self.limits)

    def kill(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self._kill_processes()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self.request_write, self.reply_read):
            try:
                os.close(fd)
            except OSError:
                pass
        for stream in (self.process.stdout, self.process.stderr):
            stream.close()
        if self.control_socket is not None:
            self.control_socket.close()
            self.control_socket = None
        self.process = None
        if self.cgroups is not None:
            self.cgroups.remove()
            self.cgroups = None

    def _kill_processes(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # bwrap and all it started
        except ProcessLookupError:
            pass

    next_id = 0

    def request(self, message, timeout):
        """Send one request; (reply dict, CellOutcome with the output and status)."""
        if self.process is None:
            return None, CellOutcome("died", "the kernel was not running")
        self.next_id += 1
        message = dict(message, id=self.next_id)
        data = (json.dumps(message) + "\n").encode()
        if len(data) > REQUEST_CAP:
            return None, CellOutcome("failed", f"the request is too large ({len(data) >> 20} MiB)")
        started = time.monotonic()
        try:
            sent = write_before(self.request_write, data, started + timeout)
        except (BrokenPipeError, OSError):
            reason = self._death_reason()
            self.kill()
            return None, CellOutcome("died", reason)
        if not sent:
            self.kill()
            return None, CellOutcome("timeout", f"timed out after {timeout:g} seconds")
        reply, outcome = self._receive(self.next_id, timeout - (time.monotonic() - started))
        if isinstance(reply, dict) and reply.get("restart") is True:
            self.dirty = True
        return reply, outcome

    def run_cell(self, kind, code, timeout):
        reply, outcome = self.request({"op": "run", "kind": kind, "code": code}, timeout)
        if reply is None:
            return outcome
        status = reply.get("status")
        if status not in ("ok", "error"):
            self.kill()
            return CellOutcome("garbled", "the kernel sent an unknown status", outcome.stdout,
                               outcome.stderr)
        result = reply.get("result")
        outcome.status = status
        outcome.message = clean(reply.get("error") or "", 2000)
        outcome.result = clean(result, 2000) if isinstance(result, str) else None
        return outcome

    def _receive(self, expected, timeout):
        out, err = bytearray(), bytearray()
        dropped = [0, 0]
        deadline = time.monotonic() + timeout
        streams = {self.process.stdout.fileno(): (out, 0), self.process.stderr.fileno(): (err, 1)}
        reply = bytearray()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                return None, CellOutcome("timeout", f"timed out after {timeout:g} seconds",
                                         _text(out, dropped[0]), _text(err, dropped[1]))
            readable, _, _ = select.select([self.reply_read] + list(streams), [], [],
                                           min(remaining, 1.0))
            for fd in readable:
                if fd in streams:
                    _drain(fd, *streams[fd], dropped)
                    continue
                chunk = _read(fd)
                if chunk is None:
                    continue
                if chunk == b"":  # the runner closed its reply pipe: it is gone
                    self._drain_all(streams, dropped)
                    reason = self._death_reason()
                    self.kill()
                    return None, CellOutcome("died", reason, _text(out, dropped[0]),
                                             _text(err, dropped[1]))
                reply += chunk
                if b"\n" not in chunk:
                    if len(reply) > REPLY_CAP:
                        self.kill()
                        return None, CellOutcome("garbled", "the kernel sent an oversized reply")
                    continue
                line, _, rest = bytes(reply).partition(b"\n")
                self._drain_all(streams, dropped)
                stdout, stderr = _text(out, dropped[0]), _text(err, dropped[1])
                try:
                    message = json.loads(line)
                except (ValueError, RecursionError):
                    message = None
                ok = isinstance(message, dict) and (
                    message.get("ready") is True if expected is None
                    else message.get("id") == expected)
                if not ok or rest:
                    # not the answer to this request: something else wrote on the channel
                    self.kill()
                    return None, CellOutcome("garbled", "the kernel's reply was not the grader's "
                                             "(something wrote on the grader's channel)",
                                             stdout, stderr)
                return message, CellOutcome("ok", "", stdout, stderr)

    def _handshake(self, timeout):
        """The start-up handshake of start(): a CellOutcome."""
        return self._receive(None, timeout)[1]


FILE_CHUNK = 4 << 20  # bytes of a student's file per request to a fork


class Template:
    """A warm sandbox that forks a fresh sandbox for each student (see ``runner.py``).

    It is a Kernel like any other that has imported torch and the course
    package and run the instructor's leading set-up cells (`prelude`, pairs of
    kind and source); then it only forks. Each fork enters namespaces of its
    own with empty writable folders and no capabilities, gets the student's
    files and runs the rest of the notebook: a fresh sandbox without the
    seconds of start-up. `outcomes` are the prelude's cell outcomes, the same
    for every student. Raises SandboxError when this machine cannot fork such
    sandboxes (the caller then starts a Kernel per student).
    """

    def __init__(self, limits, package_copy=None, prelude=()):
        self.limits, self.package_copy = limits, package_copy
        self.prelude = tuple(prelude)
        self.kernel = Kernel(tagged_folder("work"), limits, package_copy,
                             control=True)
        self.kernel.start(None)
        self.outcomes, self.exits, self.count = [], {}, 0
        try:
            for kind, source in self.prelude:
                outcome = self.kernel.run_cell(kind, source, limits.timeout)
                if outcome.status not in ("ok", "error"):
                    raise SandboxError(f"a set-up cell did not finish in the template: "
                                       f"{outcome.message}")
                self.outcomes.append(outcome)
            reply, outcome = self.kernel.request({"op": "template"}, START_TIMEOUT)
            if not reply or reply.get("template") is not True:
                raise SandboxError(f"the template did not start: {outcome.message}")
            self.control = self.kernel.control_socket
            ForkedKernel(self, self.kernel.workdir, limits).start(None).kill()  # forks work here
        except BaseException:
            self.close()
            raise

    def alive(self):
        return self.kernel.process is not None and self.kernel.process.poll() is None

    def close(self):
        self.kernel.kill()
        shutil.rmtree(self.kernel.workdir, ignore_errors=True)

    def receive(self, timeout):
        """Read one message from the template or a fork: (message, sender's pid), or (None, None)."""
        if self.kernel.control_socket is None:
            raise SandboxError("the template is gone")
        readable, _, _ = select.select([self.control], [], [], max(timeout, 0))
        if not readable:
            return None, None
        try:
            data, ancillary, _, _ = self.control.recvmsg(1 << 12, socket.CMSG_SPACE(12))
        except OSError:
            data, ancillary = b"", []
        if not data:
            self.kernel.kill()
            raise SandboxError("the template is gone")
        pid = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("i", payload[:4])[0]
        message = json.loads(data)
        if "exited" in message:
            self.exits[message["exited"]] = message["status"]
        return message, pid

    def spawn(self, cpu_seconds):
        """(number, pid as this process sees it, driver ends of the four pipes) of a new fork."""
        self.count += 1
        number = self.count
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        theirs = (request_read, reply_write, out_write, err_write)
        try:
            socket.send_fds(self.control, [json.dumps(
                {"spawn": number, "cpu_seconds": cpu_seconds or 0,
                 "tmpfs_mib": self.limits.tmpfs_mib}).encode()], list(theirs))
        except OSError as error:
            for fd in (*theirs, request_write, reply_read, out_read, err_read):
                os.close(fd)
            raise SandboxError(f"the template is gone ({error})") from None
        for fd in theirs:
            os.close(fd)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            message, pid = self.receive(deadline - time.monotonic())
            if message is not None and message.get("spawned") == number and pid:
                return number, pid, (request_write, reply_read, out_read, err_read)
            if message is not None and message.get("exited") == number:
                break
        for fd in (request_write, reply_read, out_read, err_read):
            os.close(fd)
        raise SandboxError("the template could not make a sandbox for a student "
                           f"(exit status {self.exits.get(number)})")


class _Fork:
    """The Popen-like handle of one fork of a Template."""

    def __init__(self, template, number, pid, out_fd, err_fd):
        self.template, self.number, self.pid = template, number, pid
        self.pidfd = os.pidfd_open(pid)
        self.stdout = os.fdopen(out_fd, "rb", buffering=0)
        self.stderr = os.fdopen(err_fd, "rb", buffering=0)

    def poll(self):
        if self.number in self.template.exits:
            return self.template.exits[self.number]
        if select.select([self.pidfd], [], [], 0)[0]:  # it ended: its status is on the way
            try:
                return self.wait(5)
            except subprocess.TimeoutExpired:
                return 128 + signal.SIGKILL
        return None

    def wait(self, timeout=None):
        deadline = time.monotonic() + (timeout if timeout is not None else 3600)
        while self.number not in self.template.exits:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(f"sandbox {self.number}", timeout)
            try:
                self.template.receive(min(left, 0.5))
            except SandboxError:
                return 128 + signal.SIGKILL  # the template went with it
        return self.template.exits[self.number]

    def kill(self):
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self):
        os.close(self.pidfd)


class ForkedKernel(Kernel):
    """A Kernel that is a fresh fork of a Template rather than a new bubblewrap process."""

    def __init__(self, template, workdir, limits):
        super().__init__(workdir, limits)
        self.template = template

    def start(self, cpu_seconds):
        self.memory_events = (self.template.kernel.cgroups.memory_limit_events()
                              if self.template.kernel.cgroups else 0)
        number, pid, fds = self.template.spawn(cpu_seconds)
        self.request_write, self.reply_read, out_read, err_read = fds
        try:
            self.process = _Fork(self.template, number, pid, out_read, err_read)
        except OSError:
            for fd in fds:
                os.close(fd)
            raise SandboxError("the template's fork ended before it started") from None
        self.buffers = {"reply": b""}
        for fd in (out_read, err_read, self.reply_read, self.request_write):
            os.set_blocking(fd, False)
        ready = self._handshake(START_TIMEOUT)
        if ready.status == "ok":
            ready = self._send_files()
        if ready.status != "ok":
            self.kill()
            raise SandboxError(f"the sandbox did not start: {ready.message} {ready.stderr[-2000:]}")
        return self

    def _send_files(self):
        """The student's files, copied into the fork's working folder through its channel."""
        for fd, relative in self._open_student_files():
            with os.fdopen(fd, "rb") as handle:
                first = True
                while True:
                    chunk = handle.read(FILE_CHUNK)
                    if not chunk and not first:
                        break
                    reply, outcome = self.request(
                        {"op": "file", "path": relative, "append": not first,
                         "data": base64.b64encode(chunk).decode()}, START_TIMEOUT)
                    if reply is None or reply.get("written") is not True:
                        outcome.status = "failed"
                        outcome.message = (reply or {}).get("error") or outcome.message
                        return outcome
                    first = False
                    if len(chunk) < FILE_CHUNK:
                        break
        return CellOutcome("ok")

    def _kill_processes(self):
        self.process.kill()  # its namespace's first process: everything in it ends too

    def kill(self):
        process = self.process
        super().kill()
        if process is not None:
            process.close()

    def _death_reason(self):
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the kernel stopped answering"
        cgroups = self.template.kernel.cgroups
        if cgroups is not None and cgroups.hit_memory_limit(self.memory_events):
            return (f"kernel died (out of memory: the sandbox may use {self.limits.memory_mib} "
                    "MiB in all, its processes together)")
        return death_reason(code, self.limits)


class SandboxError(RuntimeError):
    """The sandbox itself could not be started: an instructor-side problem."""


def clean(text, cap=MESSAGE_CAP):
    """A student-made string made safe for reports and notebooks: valid UTF-8, capped."""
    return str(text)[:cap].encode("utf-8", "backslashreplace").decode()


def _file_size(fd):
    return os.fstat(fd).st_size


def death_reason(code, limits):
    """Plain words for how a kernel process ended."""
    # bwrap passes on the child's exit status; a signal shows as 128 + number
    if code is None:
        return "the kernel stopped answering"
    number = -code if code < 0 else code - 128 if code > 128 else 0
    if number == signal.SIGKILL:
        return ("kernel died (killed: by its own code, or by the memory limit of "
                f"{limits.memory_mib} MiB)")
    if number == signal.SIGSEGV:
        return "kernel died (segmentation fault)"
    if number == signal.SIGXCPU:
        return "kernel died (CPU time limit)"
    if number == signal.SIGXFSZ:
        return f"kernel died (wrote a file over {limits.file_mib} MiB)"
    if number == signal.SIGABRT:
        return "kernel died (aborted; often out of memory)"
    if number:
        return f"kernel died (signal {signal.Signals(number).name})"
    return f"kernel exited (exit status {code}): the code ended the process"


def _read(fd):
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _drain(fd, buffer, index, dropped):
    while True:
        chunk = _read(fd)
        if not chunk:
            return
        room = OUTPUT_CAP - len(buffer)
        if room > 0:
            buffer += chunk[:room]
        dropped[index] += max(0, len(chunk) - max(room, 0))


def _text(buffer, dropped):
    text = bytes(buffer).decode("utf-8", "replace")
    if dropped:
        text += f"\n[... {dropped:,} more bytes of output dropped]\n"
    return text


def write_before(fd, data, deadline):
    """Write all of `data` to the non-blocking `fd` by `deadline`; False if time ran out.

    A sandbox that stops reading its request pipe can therefore never hold the
    grader longer than the cell's own time limit.
    """
    view = memoryview(data)
    while view:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        _, writable, _ = select.select([], [fd], [], min(remaining, 1.0))
        if not writable:
            continue
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue
    return True
