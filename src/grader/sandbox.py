"""The sandboxed kernel: one bubblewrap process per notebook, driven cell by cell.

The driver (this module, running as the instructor) never executes student
code. It starts ``runner.py`` inside bubblewrap with no network, a private
process, IPC and user namespace (uid 65534, no capabilities), a read-only view
of the Python environment and of the ``gptcourse`` package only, and a
writable working directory holding a copy of the student's own files. Limits
on address space, CPU seconds and file size are set before the sandbox starts;
the wall-clock limit per cell is enforced here.
"""

import contextlib
import importlib.util
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RUNNER = Path(__file__).with_name("runner.py")
SANDBOX_HOME = "/home/student"
SANDBOX_WORK = SANDBOX_HOME + "/work"
SANDBOX_RUNNER = "/opt/grader/runner.py"
OUTPUT_CAP = 20_000  # bytes of stdout and of stderr kept per cell
START_TIMEOUT = 60  # seconds for Python, torch and gptcourse to import
NOBODY = 65534  # the uid student code sees inside a user namespace
MAX_PROCESSES = 128  # processes and threads of one sandbox's user


@dataclass
class Limits:
    """Resource limits for one sandboxed kernel."""

    timeout: float = 60.0  # wall-clock seconds per cell
    memory_mib: int = 3072  # address space of the kernel
    file_mib: int = 64  # largest file the kernel may write
    tmpfs_mib: int = 128  # size of each writable in-memory folder (/tmp, /home, /dev/shm, work)
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


def _python_binds():
    """The interpreter, the environment's site-packages and the gptcourse package, read-only."""
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
    if not any(str(package).startswith(s + os.sep) for s in seen):
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


def sandbox_command(workdir, request_fd, reply_fd, python=None, files=(), tmpfs_mib=128):
    """The bwrap command line that runs the runner in a copy of the student's folder.

    The runner reads requests from `request_fd` and answers on `reply_fd`,
    two pipe ends the sandbox inherits. `files` are (file descriptor, path
    relative to the working folder) pairs, the student's files, which bwrap
    copies into the working folder. Every writable folder (the working folder,
    /tmp, /home, /dev/shm) is an in-memory file system of `tmpfs_mib` MiB
    (the working folder also has room for the copied files), so nothing the
    student's code writes reaches the host's disk or outgrows its limit.
    `workdir` on the host is never visible inside the sandbox.
    """
    python = python or sys.executable
    env = {
        "HOME": SANDBOX_HOME,
        "USER": "student",
        "LOGNAME": "student",
        "PATH": os.path.dirname(python) + ":/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    mode = privilege_mode()
    args = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--hostname", "jupyter", "--clearenv"]
    if mode == "userns":
        args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY),
                 "--disable-userns", "--cap-drop", "ALL"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    size = str(tmpfs_mib << 20)
    copied = sum(_file_size(fd) for fd, _ in files)
    # the empty in-memory folders first, so that an environment or package that
    # lives below /tmp or /home on the host is bound on top of them, not hidden
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm",
             "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
             "--perms", "0755", "--size", size, "--tmpfs", "/home"]
    args += _readonly_system_binds() + _python_binds()
    args += ["--perms", "1777", "--dir", SANDBOX_HOME,
             "--perms", "0777", "--size", str(copied + (tmpfs_mib << 20)),
             "--tmpfs", SANDBOX_WORK]
    made = set()
    for fd, relative in files:
        parts = Path(relative).parts
        for depth in range(1, len(parts)):
            folder = os.path.join(SANDBOX_WORK, *parts[:depth])
            if folder not in made:
                made.add(folder)
                args += ["--perms", "0777", "--dir", folder]
        args += ["--perms", "0666", "--file", str(fd), os.path.join(SANDBOX_WORK, relative)]
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
    return args


class Kernel:
    """One sandboxed runner process; `run` sends a cell and decides what happened."""

    def __init__(self, workdir, limits):
        self.limits = limits
        self.workdir = workdir
        self.process = None
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
        memory = self.limits.memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        size = self.limits.file_mib << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))

    def start(self, cpu_seconds):
        request_read, self.request_write = os.pipe()
        self.reply_read, reply_write = os.pipe()
        files = self._open_student_files()
        try:
            self.process = subprocess.Popen(
                sandbox_command(self.workdir, request_read, reply_write, files=files,
                                tmpfs_mib=self.limits.tmpfs_mib),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                preexec_fn=lambda: self._set_limits(cpu_seconds),
                pass_fds=(request_read, reply_write, *(fd for fd, _ in files)),
                start_new_session=True)
        finally:
            for fd in (request_read, reply_write, *(fd for fd, _ in files)):
                os.close(fd)
        self.buffers = {"reply": b""}
        for stream in (self.process.stdout, self.process.stderr):
            os.set_blocking(stream.fileno(), False)
        os.set_blocking(self.reply_read, False)
        ready = self._handshake(START_TIMEOUT)  # defined by checker.ServingKernel
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
        return death_reason(code, self.limits)

    def kill(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
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
        self.process = None


class SandboxError(RuntimeError):
    """The sandbox itself could not be started: an instructor-side problem."""


def _file_size(fd):
    return os.fstat(fd).st_size


WORK_ROOT_PREFIX = "grader-run-"


def _start_ticks(pid):
    """The start time of process `pid` in clock ticks since boot, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[19])  # field 22 of stat(5), counted after the command name
    except (OSError, IndexError, ValueError):
        return None


@contextlib.contextmanager
def private_work_root():
    """A folder only this grader can enter, used for every temporary folder while grading.

    Its name holds the grader's process id and start time, so a later run can
    tell that the grader that made it is dead (see remove_stale_work_roots).
    Working folders inside it are private even if a process made them
    world-writable, and it is removed at the end, also after an error.
    """
    base = tempfile.gettempdir()
    root = tempfile.mkdtemp(prefix=f"{WORK_ROOT_PREFIX}{os.getpid()}-{_start_ticks(os.getpid())}-",
                            dir=base)
    os.chmod(root, 0o700)
    saved = tempfile.tempdir
    tempfile.tempdir = root  # forked workers inherit it
    try:
        yield root
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(root, ignore_errors=True)


LOOSE_WORKDIR = re.compile(r"grader-[a-z0-9_]{8}")  # a working folder made outside a root
LOOSE_WORKDIR_STALE_SECONDS = 6 * 3600


def remove_stale_work_roots(base=None):
    """Remove what graders that are no longer running left in `base`; returns the paths.

    These are the private work roots of dead graders, and working folders
    made outside any root (by grading code called directly) that have not
    changed for hours.
    """
    base = base or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        path = os.path.join(base, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode):
            continue
        if name.startswith(WORK_ROOT_PREFIX):
            try:
                pid, ticks = name[len(WORK_ROOT_PREFIX):].split("-")[:2]
                pid = int(pid)
            except ValueError:
                continue
            # that grader is dead (or its process id now belongs to another process)
            stale = info.st_uid == os.geteuid() and str(_start_ticks(pid)) != ticks
        else:
            stale = (LOOSE_WORKDIR.fullmatch(name) is not None
                     and (info.st_uid == os.geteuid() or os.geteuid() == 0)
                     and time.time() - info.st_mtime > LOOSE_WORKDIR_STALE_SECONDS)
        if stale:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


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


def _write_all(fd, data):
    while data:
        written = os.write(fd, data)
        data = data[written:]
