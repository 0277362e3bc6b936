"""The bubblewrap command line of one sandbox: what it sees, as whom it runs, what it may write.

The driver never executes student code. It starts the inside (the package
``inside/``, bound read-only) in bubblewrap with no network, a private process,
IPC and user namespace (uid 65534, no capabilities), a read-only view of the
Python environment and of the course package only, and a writable working
directory holding a copy of the student's own files.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..numerics import NUMERIC_ENVIRONMENT
from ..settings import CourseError, SandboxError
from .inside.shared import SANDBOX_HOME, SANDBOX_WORK  # one definition each, inside and out

INSIDE = Path(__file__).with_name("inside")  # what runs inside the sandbox, a package
SANDBOX_INSIDE = "/opt/grader/inside"  # where the sandbox sees it, read-only
# how the sandbox starts it: only the folder's parent, which holds nothing else, goes on the
# path, so that inside, the folder is the package `inside` and nothing of the grader imports
START_INSIDE = (f"import sys; sys.path.insert(0, {os.path.dirname(SANDBOX_INSIDE)!r}); "
                "from inside.main import main_inside_sandbox; main_inside_sandbox()")
NOBODY = 65534  # the uid student code sees inside a user namespace


SANDBOX_PACKAGE = "bubblewrap"  # the Debian package of bwrap, which `make grading-system` installs
NEVER_UNSANDBOXED = (f"run `make grading-system` (the Debian package {SANDBOX_PACKAGE}); "
                     "student code never runs unsandboxed")
TRY_SECONDS = 30  # how long a trial sandbox may take to start and end


def bwrap_available() -> bool:
    return shutil.which("bwrap") is not None


def sandbox_problem() -> str:
    """'' when bubblewrap is installed and can make here the namespaces a sandbox needs
    (a trial sandbox that runs `true`); otherwise one line saying what is wrong and what
    to run."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return f"bubblewrap (bwrap) is not installed: {NEVER_UNSANDBOXED}"
    trial = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
             "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    if privilege_mode() == "userns":
        trial += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    try:
        done = subprocess.run(trial + ["true"], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, errors="replace", timeout=TRY_SECONDS)
    except subprocess.TimeoutExpired:
        said = f"a trial sandbox did not end within {TRY_SECONDS} s"
    except OSError as error:
        said = error.strerror or str(error)
    else:
        if done.returncode == 0:
            return ""
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        said = lines[-1] if lines else f"exit status {done.returncode}"
    return (f"bubblewrap ({bwrap}) cannot make a sandbox on this machine ({said[:300]}): "
            f"{NEVER_UNSANDBOXED}, on a machine that allows its namespaces")


def require_sandbox() -> None:
    """CourseError, in one line, unless bubblewrap can sandbox student code here: what
    every command that grades on this machine checks before it starts anything."""
    problem = sandbox_problem()
    if problem:
        raise CourseError(problem)


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


def package_location(package: str) -> str:
    """The folder of the installed course package `package`, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SandboxError(f"the {package} package is not installed in this environment")
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


def _python_binds(package, package_copy=None):
    """The interpreter, the environment's site-packages and the course package, read-only.

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
    location = Path(package_location(package)).resolve()
    if package_copy:
        bind(str(package_copy), str(location))
    elif not any(str(location).startswith(s + os.sep) for s in seen):
        bind(str(location), str(location))
    return args


def sandbox_uid() -> int:
    """The unprivileged uid (and gid) this worker's sandboxes run as.

    Each grading worker has a uid of its own, outside the range of real
    accounts, so the process limit of one sandbox never affects another
    student graded at the same time.
    """
    if privilege_mode() == "userns":
        return NOBODY
    return 3_000_000 + os.getpid() % 1_000_000


def privilege_mode() -> str:
    """How the sandbox drops privileges.

    As root (the usual grader account on a course server) bubblewrap needs no
    user namespace: the inside is started through `setpriv` as the real,
    unprivileged uid 65534, so Linux also enforces the process limit. Any
    other user gets a user namespace in which it appears as uid 65534.
    """
    if os.geteuid() == 0 and shutil.which("setpriv"):
        return "setpriv"
    return "userns"


def hide_other_processes(bwrap_pid: int) -> bool:
    """Remount the /proc of the sandbox bubblewrap `bwrap_pid` started so that it lists only
    the processes its reader may trace (hidepid=invisible); True when done.

    Student code then sees its own processes and none of the rest of the sandbox: a
    warm template's, bubblewrap's own. It needs root (the setpriv mode); the remount
    is made in the sandbox's mount namespace, never in this machine's.
    """
    nsenter = shutil.which("nsenter")
    if privilege_mode() != "setpriv" or nsenter is None:
        return False
    try:
        with open(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children", encoding="ascii") as handle:
            inside = handle.read().split()[:1]
        if not inside or (os.readlink(f"/proc/{inside[0]}/ns/mnt")
                          == os.readlink("/proc/self/ns/mnt")):
            return False
    except OSError:
        return False
    done = subprocess.run([nsenter, f"--mount=/proc/{inside[0]}/ns/mnt", "mount", "-o",
                           "remount,nosuid,nodev,noexec,hidepid=invisible", "/proc"],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    return done.returncode == 0


def sandbox_command(workdir: str, request_fd: int, reply_fd: int, tmpfs_mib: int, package: str,
                    python: str | None = None, files: tuple[tuple[int, str], ...] = (),
                    package_copy: str | None = None, control_fd: int | None = None
                    ) -> list[str]:
    """The bwrap command line that runs the inside in a copy of the student's folder.

    The inside reads requests from `request_fd` and answers on `reply_fd`,
    two pipe ends the sandbox inherits. `files` are (file descriptor, path
    relative to the working folder) pairs, the student's files, which bwrap
    copies into the working folder. Every writable folder (the working folder,
    /tmp, /home, /dev/shm) is an in-memory file system of `tmpfs_mib` MiB
    (the working folder also has room for the copied files), so nothing the
    student's code writes reaches the host's disk or outgrows its limit.
    `workdir` on the host is never visible inside the sandbox. `package` is
    the course package, which the inside imports before any notebook code.
    With `control_fd` the inside can become a warm template (see Template).
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
    args += _readonly_system_binds() + _python_binds(package, package_copy)
    args += ["--perms", "1777", "--dir", SANDBOX_HOME,
             "--perms", "0777", "--size", str(copied + (tmpfs_mib << 20)),
             "--tmpfs", SANDBOX_WORK]
    args += _student_file_args(files)
    args += ["--perms", "0755", "--dir", os.path.dirname(SANDBOX_INSIDE),
             "--ro-bind", str(INSIDE), SANDBOX_INSIDE, "--chdir", SANDBOX_WORK,
             "--remount-ro", "/"]
    if mode == "setpriv":
        uid = sandbox_uid()
        args += [shutil.which("setpriv"), f"--reuid={uid}", f"--regid={uid}",
                 "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    # -I: ignore PYTHON* variables, the user site and the current folder, so a planted
    # sitecustomize.py or usercustomize.py in the working folder is never imported
    args += [python, "-I", "-X", "utf8", "-c", START_INSIDE, str(request_fd), str(reply_fd),
             package]
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
        "IPYTHONDIR": SANDBOX_HOME + "/.ipython",
        **NUMERIC_ENVIRONMENT,  # kernels are forked from a warm template
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


def _file_size(fd):
    return os.fstat(fd).st_size
