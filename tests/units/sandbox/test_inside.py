"""What runs inside the sandbox (grader.sandbox.inside), tried here without a sandbox."""

import os

import pytest


def test_a_checks_child_that_answered_is_reaped_now_or_before_the_next_request():
    import types

    from grader.sandbox.inside.shell import Runner

    kernel = types.SimpleNamespace(ending=[])
    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitid(os.P_PID, gone, os.WEXITED | os.WNOWAIT)  # it has ended, not yet reaped
    assert Runner.reap_or_defer(kernel, gone, True) == 0 and kernel.ending == []
    read, write = os.pipe()
    still = os.fork()
    if still == 0:  # torn down only once the test lets it end
        os.close(write)
        os.read(read, 1)
        os._exit(0)
    os.close(read)
    assert Runner.reap_or_defer(kernel, still, True) == 0 and kernel.ending == [still]
    os.close(write)
    Runner.reap_ended(kernel)  # before the next request: waited for, reaped
    assert kernel.ending == []
    with pytest.raises(ChildProcessError):  # no such child left
        os.waitpid(still, os.WNOHANG)
    died = os.fork()
    if died == 0:
        os._exit(3)
    status = Runner.reap_or_defer(kernel, died, False)  # it did not answer: how it ended
    assert os.waitstatus_to_exitcode(status) == 3 and kernel.ending == []
