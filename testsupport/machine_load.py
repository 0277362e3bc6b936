"""Load on this machine, started by a test and stopped after it: a few busy processes.

`machine_load` runs processes that keep a core busy and one that forks and reaps
children without pause, as other grading running beside a class would, so that a
test can show that what it checks does not depend on how busy the machine is.
The load is bounded: `busy` spinning processes and one forking process, each a
plain Python loop, all killed when the block ends (also after an error).
"""

import contextlib
import subprocess
import sys

SPIN = "while True:\n    pass\n"
FORK_AND_REAP = ("import os\n"
                 "while True:\n"
                 "    pid = os.fork()\n"
                 "    if pid == 0:\n"
                 "        os._exit(0)\n"
                 "    os.waitpid(pid, 0)\n")


@contextlib.contextmanager
def machine_load(busy: int = 2) -> object:
    """`busy` processes spinning on a core each and one forking without pause, for the
    duration of the block; yields their Popen handles."""
    processes = []
    try:
        for source in [SPIN] * busy + [FORK_AND_REAP]:
            processes.append(subprocess.Popen([sys.executable, "-c", source],
                                              stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
        yield processes
    finally:
        for process in processes:
            process.kill()
        for process in processes:
            process.wait()
