"""The driver's end of a sandbox's channel: what a cell did, output capped, bounded writes.

A sandbox answers on pipes the driver reads without blocking: `CellOutcome` is
what the driver decided about one request, `GraderFault` a failure that is not
the student's code's, `drain` and `output_text` keep at
most OUTPUT_CAP bytes of each output stream, `write_before` never waits past a
deadline, and `death_reason` words how a kernel process ended.
"""

import os
import select
import signal
import time
from dataclasses import dataclass
from enum import StrEnum

from ..settings import Limits

OUTPUT_CAP = 20_000  # bytes of stdout and of stderr kept per cell
REQUEST_CAP = 16 << 20  # bytes of one request to the sandbox
REPLY_CAP = 40 << 20  # bytes of one reply line; more is garbage


class CellStatus(StrEnum):
    """How one request to a sandbox ended, as the driver decided."""

    OK = "ok"  # a cell ran to its end
    ERROR = "error"  # a cell raised: the student's error, the kernel goes on
    PASSED = "passed"  # a check passed
    FAILED = "failed"  # a check failed, or the request could not be made
    TIMEOUT = "timeout"
    DIED = "died"  # the kernel process ended
    GARBLED = "garbled"  # the reply was not the grader's
    NOT_RUN = "not run"  # a check not run: the notebook's time had run out


class GraderFault(Exception):
    """The grader failed on a notebook for a reason that is not the student's code (a
    check's fork the system kept refusing): the notebook is not graded, never given zero,
    and is graded again on the next run."""


@dataclass
class CellOutcome:
    """What happened to one cell, decided by the driver."""

    status: CellStatus
    message: str = ""
    stdout: str = ""
    stderr: str = ""
    result: str | None = None


def death_reason(code: int | None, limits: Limits) -> str:
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


def read_available(fd: int) -> bytes | None:
    """What `fd` has to read now: b"" at its end, None when nothing is there yet."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def drain(fd: int, buffer: bytearray, index: int, dropped: list[int]) -> None:
    """Read all `fd` has into `buffer`, keeping OUTPUT_CAP bytes; count the rest in dropped[index]."""
    while True:
        chunk = read_available(fd)
        if not chunk:
            return
        room = OUTPUT_CAP - len(buffer)
        if room > 0:
            buffer += chunk[:room]
        dropped[index] += max(0, len(chunk) - max(room, 0))


def output_text(buffer: bytearray, dropped: int) -> str:
    """The kept output as text, saying how much was dropped."""
    text = bytes(buffer).decode("utf-8", "replace")
    if dropped:
        text += f"\n[... {dropped:,} more bytes of output dropped]\n"
    return text


def write_before(fd: int, data: bytes, deadline: float) -> bool:
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
