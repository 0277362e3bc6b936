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


def test_the_inside_is_bound_read_only_and_started_with_nothing_of_the_grader_on_its_path():
    from grader.sandbox import command

    args = sandbox_command("/nowhere", 3, 4, tmpfs_mib=5, package="gptcourse")
    bound = [args[i + 1:i + 3] for i, a in enumerate(args) if a == "--ro-bind"]
    assert [str(command.INSIDE), command.SANDBOX_INSIDE] in bound
    parent = os.path.dirname(command.SANDBOX_INSIDE)  # made empty, then holds only the inside
    assert [b for b in bound if b[1].startswith(parent + "/")] == [
        [str(command.INSIDE), command.SANDBOX_INSIDE]]
    start = args.index("-c")
    assert args[start - 3:start + 2] == ["-I", "-X", "utf8", "-c", command.START_INSIDE]
    assert args[start + 2:] == ["3", "4", "gptcourse"]
    assert command.START_INSIDE.startswith(f"import sys; sys.path.insert(0, {parent!r}); ")
