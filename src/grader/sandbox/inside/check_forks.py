"""A check's calls answered in a forked child of the kernel, thrown away when the check ends.

The child answers every request until the check ends (``{"id": n, "op": "end"}``
-> ``{"id": n, "ended": true}``) and is then thrown away: whatever the answer
functions change in memory (globals they record, module state, random number
generators) is gone before the next cell. A fork the system refuses, or one that
ends before it answers, is tried again (CHECK_FORK_TRIES times: a busy machine
or a process not yet reaped can hold the limit for a moment); if it still fails,
the reply says whose doing that is: "lost" when the student's own processes hold
the process limit, "fault" otherwise (the grader then reports the notebook as
not graded). If the calls changed the sandbox's writable folders, the reply to
"end" says so (``"restart": true``) and the driver starts a fresh kernel for the
cells after the check. A call's ``overrides`` are definitions from the check
itself (a reference version of another answer) that the child binds before the
call (``shell.py``, Runner.call).
"""

import errno
import json
import os
import resource
import time

from .protocol import flush_streams, read_requests, send
from .snapshot import writable_snapshot

_os_read = os.read  # kept before any notebook code runs, which could replace them
_os_write = os.write
_fork = os.fork
_pipe = os.pipe
_close = os.close
_waitpid = os.waitpid
_WNOHANG = os.WNOHANG
_exit_now = os._exit
_listdir = os.listdir
_dumps = json.dumps
_loads = json.loads
_isinstance = isinstance
_sleep = time.sleep
_getrlimit = resource.getrlimit

CHECK_FORK_TRIES = 5  # forks for a check's calls, the waits between them doubling from 50 ms


class ForkedChecks:
    """What makes a Runner answer each check's calls in a forked child (a mixin).

    The Runner has `writable` (the folders a call may change), `read_only` (the
    mounts below them no call can change), `ending` (children being torn down),
    `handle` (answers a request) and `call` (calls an answer's function).
    """

    def call_in_child(self, request, reply):
        """Answer a check's calls in a forked child; returns the reply to send.

        The child answers this call and every request after it (more calls,
        values, descriptions) until the check ends ({"op": "end"}), then
        vanishes: within a check, the answers see each other's effects, as in
        the notebook; after it, nothing the calls changed remains.
        """
        flush_streams()
        before = writable_snapshot(self.writable, self.read_only)
        for attempt in range(CHECK_FORK_TRIES):
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
    """The fork for a check's calls: os.fork as it was before any notebook code ran."""
    return _fork()


def fork_failure(request_id, refused):
    """The reply to a call whose fork failed CHECK_FORK_TRIES times (`refused`: the last OSError,
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
    return {"id": request_id, "fault": f"a check's fork failed {CHECK_FORK_TRIES} times: {why}"}


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
