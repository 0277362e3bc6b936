"""The warm template: a kernel that has run the set-up once, then forks a sandbox per student.

A template is a kernel that has imported the course package (torch with it,
where the package uses torch) and run the instructor's leading set-up cells; asked to (``{"op": "template"}``), it
then only forks. Each fork becomes one student's sandbox
(``student_sandbox.py``).

  driver -> template: {"spawn": n, "cpu_seconds": s, "tmpfs_mib": m, "file_mib": f,
                       "max_processes": p}
                      with four descriptors: request, reply, stdout, stderr, and a
                      fifth, a pipe the fork waits on for one byte after "spawned"
                      (the driver first moves it into the student's own cgroups)
  fork   -> driver:   {"spawned": n}    (the kernel adds the fork's process id)
  template -> driver: {"exited": n, "status": code}  (128 + signal if killed)
  driver -> template: {"attach": k} with one descriptor: another control channel,
                      answered like the first (one per grading worker)
"""

import gc
import json
import os
import sys

from .protocol import channel_descriptors, flush_streams
from .setup_tensors import map_setup_tensors
from .shared import short
from .student_sandbox import PR_SET_DUMPABLE, become_student_sandbox, libc_calls

_os_read = os.read  # kept before any notebook code runs, which could replace them
_os_write = os.write
_fork = os.fork
_close = os.close
_exit_now = os._exit
_gc_freeze = gc.freeze
_dumps = json.dumps
_loads = json.loads
_BaseException = BaseException


def warm_up():
    """Import what torch loads lazily on first use of the meta device, as a notebook's
    first such cell would: a template does it once, before its first fork, so the
    students forked later do not pay for it. A template does it in a thread of its own
    while its set-up cells run: the meta device is that thread's alone (torch's device
    modes are per thread) and draws no random numbers, so the cells' generator and
    tensors are as without it (tests/sandbox/test_warm_template.py). Nothing where the
    course package does not use torch."""
    torch = sys.modules.get("torch")  # the course package's import loaded it, or nothing
    if torch is None:
        return
    with torch.device("meta"):
        torch.nn.Linear(2, 2)
        torch.triu(torch.ones(2, 2), diagonal=1)


def serve_template(runner, control_fd, serve):
    """Fork a fresh sandboxed runner for each spawn request; report how each ended.

    Requests come on the first control channel and on any channel attached
    through it (one per grading worker of the machine); each fork's end is
    reported on the channel that asked for it. In each fork, `serve(runner)`
    answers the student's requests (main.serve).
    """
    import select
    import signal
    import socket

    _, _, call = libc_calls()
    call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)  # no same-user ptrace or /proc/PID/mem
    first = socket.socket(fileno=control_fd)
    channels = [first]
    for fd in channel_descriptors():  # the template's own channel is not used again
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
                    become_student_sandbox(runner, channel, request, fds, serve)
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

