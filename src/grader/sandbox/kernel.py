"""One sandboxed kernel: the inside's process in bubblewrap, driven with numbered requests.

Limits on address space, CPU seconds and file size are set before the sandbox
starts; the wall-clock limit of each request is enforced here.
"""

import json
import os
import resource
import select
import signal
import socket
import stat
import subprocess
import time
from typing import Any

from ..files import owner_tag
from ..safe_text import capped
from ..settings import Limits, SandboxError
from .cgroups import SandboxCgroups
from .channel import (REPLY_CAP, REQUEST_CAP, CellOutcome, CellStatus, death_reason, drain,
                      output_text, read_available, write_before)
from .command import hide_other_processes, sandbox_command

START_TIMEOUT = 60  # seconds for Python, torch and the course package to import


class Kernel:
    """One sandboxed kernel process, driven with numbered requests (see ``inside/``).

    `execute` sends a cell and decides what happened; `request` sends any
    request and waits, at most its timeout, for the matching reply.
    """

    def __init__(self, workdir: str, limits: Limits, package: str,
                 package_copy: str | None = None, control: bool = False):
        self.limits = limits
        self.workdir = workdir
        self.package = package  # the course package the kernel imports
        self.package_copy = package_copy
        self.control = control  # a channel for a template's forks (see Template)
        self.control_socket = None
        self.process = None
        self.cgroups = None
        self.dirty = False  # a check's call changed the sandbox's files: start afresh
        self.fault = ""  # why the sandbox failed for a reason not the student's (GraderFault)
        self.stale_at = 0  # the request answered by the reply to the one before it, late
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
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
        if self.control:
            # a template runs no student code: each fork sets these for itself (inside/),
            # so that the set-up's tensors may go into a memory file, and so that one
            # student's processes never count against another worker's student
            return
        size = self.limits.file_mib << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_NPROC, (self.limits.max_processes,) * 2)

    def start(self, cpu_seconds: int | None) -> None:
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
                sandbox_command(self.workdir, request_read, reply_write, package=self.package,
                                files=files,
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
        if ready.status != CellStatus.OK:
            self.kill()
            raise SandboxError(f"the sandbox did not start: {ready.message} {ready.stderr[-2000:]}")
        hide_other_processes(self.process.pid)  # its /proc lists only what its reader may trace

    def _drain_all(self, streams, dropped):
        for fd, (buffer, index) in streams.items():
            drain(fd, buffer, index, dropped)

    def _death_reason(self):
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the kernel stopped answering"
        if self.cgroups is not None and self.cgroups.hit_memory_limit():
            return (f"kernel died (out of memory: the sandbox may use {self.limits.memory_mib} "
                    "MiB in all, its processes together)")
        return death_reason(code, self.limits)

    def kill(self) -> None:
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

    def request(self, message: dict[str, Any], timeout: float
                ) -> tuple[dict[str, Any] | None, CellOutcome]:
        """Send one request; (reply dict, CellOutcome with the output and status)."""
        if self.process is None:
            return None, CellOutcome(CellStatus.DIED, "the kernel was not running")
        self.next_id += 1
        message = dict(message, id=self.next_id)
        data = (json.dumps(message) + "\n").encode()
        if len(data) > REQUEST_CAP:
            return None, CellOutcome(CellStatus.FAILED,
                                     f"the request is too large ({len(data) >> 20} MiB)")
        started = time.monotonic()
        try:
            sent = write_before(self.request_write, data, started + timeout)
        except (BrokenPipeError, OSError):
            reason = self._death_reason()
            self.kill()
            return None, CellOutcome(CellStatus.DIED, reason)
        if not sent:
            self.kill()
            return None, CellOutcome(CellStatus.TIMEOUT, f"timed out after {timeout:g} seconds")
        reply, outcome = self._receive(self.next_id, timeout - (time.monotonic() - started))
        if isinstance(reply, dict) and reply.get("restart") is True:
            self.dirty = True
        if isinstance(reply, dict) and isinstance(reply.get("fault"), str):
            self.fault = capped(reply["fault"], 600)
            self.kill()
            return None, CellOutcome(CellStatus.FAILED, f"the grader failed: {self.fault}",
                                     outcome.stdout, outcome.stderr)
        if isinstance(reply, dict) and isinstance(reply.get("lost"), str):
            self.kill()
            return None, CellOutcome(CellStatus.DIED, capped(reply["lost"], 600),
                                     outcome.stdout, outcome.stderr)
        return reply, outcome

    def execute(self, kind: str, code: str, timeout: float) -> CellOutcome:
        """Run one cell of `kind` (setup, solution, extra) and decide what happened."""
        reply, outcome = self.request({"op": "run", "kind": kind, "code": code}, timeout)
        if reply is None:
            return outcome
        status = reply.get("status")
        if status not in (CellStatus.OK, CellStatus.ERROR):
            self.kill()
            return CellOutcome(CellStatus.GARBLED, "the kernel sent an unknown status",
                               outcome.stdout, outcome.stderr)
        result = reply.get("result")
        outcome.status = CellStatus(status)
        outcome.message = capped(str(reply.get("error") or ""), 2000)
        outcome.result = capped(result, 2000) if isinstance(result, str) else None
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
                return None, CellOutcome(CellStatus.TIMEOUT, f"timed out after {timeout:g} seconds",
                                         output_text(out, dropped[0]), output_text(err, dropped[1]))
            readable, _, _ = select.select([self.reply_read] + list(streams), [], [],
                                           min(remaining, 1.0))
            for fd in readable:
                if fd in streams:
                    drain(fd, *streams[fd], dropped)
                    continue
                chunk = read_available(fd)
                if chunk is None:
                    continue
                if chunk == b"":  # the kernel closed its reply pipe: it is gone
                    self._drain_all(streams, dropped)
                    reason = self._death_reason()
                    self.kill()
                    return None, CellOutcome(CellStatus.DIED, reason, output_text(out, dropped[0]),
                                             output_text(err, dropped[1]))
                reply += chunk
                if b"\n" not in chunk:
                    if len(reply) > REPLY_CAP:
                        self.kill()
                        return None, CellOutcome(CellStatus.GARBLED,
                                                 "the kernel sent an oversized reply")
                    continue
                line, _, rest = bytes(reply).partition(b"\n")
                self._drain_all(streams, dropped)
                stdout, stderr = output_text(out, dropped[0]), output_text(err, dropped[1])
                try:
                    message = json.loads(line)
                except (ValueError, RecursionError):
                    message = None
                ok = isinstance(message, dict) and (
                    message.get("ready") is True if expected is None
                    else message.get("id") == expected)
                if not ok or rest:
                    # not the answer to this request: something else wrote on the channel;
                    # the real answer to the request before, late: what ran then forged one
                    if (isinstance(message, dict) and expected is not None
                            and message.get("id") == expected - 1):
                        self.stale_at = expected
                    self.kill()
                    return None, CellOutcome(CellStatus.GARBLED,
                                             "the kernel's reply was not the grader's "
                                             "(something wrote on the grader's channel)",
                                             stdout, stderr)
                return message, CellOutcome(CellStatus.OK, "", stdout, stderr)

    def _handshake(self, timeout):
        """The start-up handshake of start(): a CellOutcome."""
        return self._receive(None, timeout)[1]
