"""A machine too busy to fork: sandboxes whose first forks for a check's calls are refused.

A loaded machine refuses a fork for a moment (EAGAIN) when its process limit is
held. The grader has no switch for that; the tests make it happen with
`refusing_check_forks`, another start for the inside of the sandbox (put in
place of ``grader.sandbox.command.START_INSIDE``), which replaces the inside's
`check_forks.fork_for_check` before it serves. Each sandbox started with it, and
each student's sandbox a warm template started with it forks, refuses its first
`count` forks for a check's calls.
"""

import os

from grader.sandbox import command


def refusing_check_forks(count: int) -> str:
    """Python code that starts the inside of a sandbox whose first `count` forks for a
    check's calls fail as a busy machine makes them fail."""
    parent, package = os.path.split(command.SANDBOX_INSIDE)
    return f"""import errno, os, sys
sys.path.insert(0, {parent!r})
from {package} import check_forks
from {package}.main import main_inside_sandbox
refusals = [{int(count)}]
fork = check_forks.fork_for_check
def refused_while_busy():
    if refusals[0] > 0:
        refusals[0] -= 1
        raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
    return fork()
check_forks.fork_for_check = refused_while_busy
main_inside_sandbox()
"""
