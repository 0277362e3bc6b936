"""What a sandbox is started with (grader.sandbox.command), without starting one."""

import os

from grader.sandbox import SANDBOX_HOME, SANDBOX_WORK, sandbox_command


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
