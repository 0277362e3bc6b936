"""A fork of the warm template made one student's sandbox: namespaces, fresh folders, no
capabilities.

The fork enters new user, mount, PID, IPC, network and UTS namespaces, puts
fresh in-memory folders over every writable place (the read-only folders below
them bound again on top), drops every capability and becomes one student's
kernel: a fresh sandbox that starts warm. Nothing a student does reaches the
template (its memory is copied on write, its folders are hidden, it is not
dumpable and lives outside the student's PID namespace) or a later student.
"""

import json
import os
import resource
import sys

from .protocol import flush_streams, use_channel
from .shared import SANDBOX_HOME, SANDBOX_WORK
from .snapshot import mounts

_os_read = os.read  # kept before any notebook code runs, which could replace them
_fork = os.fork
_close = os.close
_waitpid = os.waitpid
_exit_now = os._exit
_dumps = json.dumps

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
FRESH = (("/tmp", "1777"), ("/home", "0755"), ("/dev/shm", "1777"))


def libc_calls():
    """(ctypes, the C library, call), where `call(name, *args)` calls the C library's `name`
    and raises OSError when it fails."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def call(name, *args):
        if getattr(libc, name)(*args) != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"{name}: {os.strerror(number)}")

    return ctypes, libc, call


def become_student_sandbox(runner, control, request, fds, serve):
    """In a fork of the template: new namespaces, fresh folders, no capabilities; then
    `serve(runner)` answers the student's requests (main.serve) in process 1 of the new
    PID namespace, and this process ends as that one does."""
    import signal

    ctypes, libc, call = libc_calls()
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


def _fresh_folders(call, size):
    """Empty in-memory folders over /tmp, /home, /dev/shm and the working folder.

    The read-only folders bound below them (the Python environment, the course
    package, where they live below /tmp or /home) are bound again on top.
    """
    tops = [top for top, _ in FRESH]
    kept = []
    for point, options in sorted(mounts(), key=lambda pair: len(pair[0])):
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
    request, reply, out, err = (os.dup(fd) for fd in fds)  # above 4, out of the way
    for fd in fds:
        _close(fd)
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.dup2(request, 3)
    os.dup2(reply, 4)
    os.closerange(5, 1 << 16)
    use_channel(3, 4)
    sys.argv[1:] = ["3", "4"]  # as an inside started with these descriptors sees them


