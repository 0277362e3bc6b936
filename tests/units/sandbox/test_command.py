"""What a sandbox is started with, and how its end is told, without starting one."""

import os

import pytest

from grader.sandbox import death_reason
from grader.settings import Limits
from grader.sandbox import SANDBOX_HOME, SANDBOX_WORK, sandbox_command


def test_death_reasons_are_plain_words():
    limits = Limits(timeout=60, memory_mib=1024)
    assert death_reason(-11, limits) == "kernel died (segmentation fault)"
    assert death_reason(128 + 9, limits).startswith("kernel died (killed")
    assert "1024 MiB" in death_reason(-9, limits)
    assert death_reason(0, limits).startswith("kernel exited (exit status 0)")


def test_the_sandboxed_package_has_stubs_for_the_answers_and_the_rest_unchanged(tmp_path):
    import gptcourse
    from grader.sandbox import sandboxed_package

    copy = sandboxed_package("gptcourse", ("count_parameters", "generate_text_simple"),
                             root=str(tmp_path))
    with open(os.path.join(copy, "counting.py"), encoding="utf-8") as handle:
        counting = handle.read()
    assert "p.numel()" not in counting.split("def count_parameters")[1].split("def ")[0]
    assert ("raise RuntimeError('gptcourse.count_parameters is not available while your "
            "homework is graded: write your own count_parameters')") in counting
    with open(os.path.join(os.path.dirname(gptcourse.__file__), "model.py"),
              encoding="utf-8") as handle:
        model = handle.read()
    with open(os.path.join(copy, "model.py"), encoding="utf-8") as handle:
        assert handle.read() == model  # no answer in it: byte for byte the package's
    assert os.path.isfile(os.path.join(copy, "assets", "gpt2.tiktoken"))


def test_the_sandbox_gives_no_host_folder_to_write_and_sizes_every_tmpfs(tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("12345")
    fd = os.open(data, os.O_RDONLY)
    try:
        args = sandbox_command(str(tmp_path), 3, 4, files=[(fd, "sub/data.txt")], tmpfs_mib=5,
                               package="gptcourse")
    finally:
        os.close(fd)
    assert "--bind" not in args and str(tmp_path) not in args
    tmpfs = [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    sizes = [int(args[i - 1]) for i, a in enumerate(args) if a == "--tmpfs"]
    # folders inside the sandbox, not on the host: the two writable system folders,
    # the parent of the student's home, and the work folder in that home
    assert tmpfs == ["/dev/shm", "/tmp", os.path.dirname(SANDBOX_HOME), SANDBOX_WORK]
    assert sizes == [5 << 20] * 3 + [(5 << 20) + 5]
    assert args[args.index("--file") + 1:args.index("--file") + 3] == [
        str(fd), os.path.join(SANDBOX_WORK, "sub", "data.txt")]


def test_a_checks_child_that_answered_is_reaped_now_or_before_the_next_request():
    import types

    from grader.sandbox.runner import Runner

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
