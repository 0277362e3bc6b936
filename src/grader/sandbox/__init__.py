"""The sandbox wing: where student code runs, and the driver's end of its channel.

- ``command.py``: the bubblewrap command line (what the sandbox sees, as whom it runs).
- ``cgroups.py``: memory and process limits for a sandbox's processes together.
- ``package_copy.py``: the course package with the answers' functions stubbed.
- ``channel.py``: `CellOutcome`, capped output, bounded writes, how a kernel died,
  `GraderFault` (a failure that is not the student's).
- ``kernel.py``: `Kernel`, one sandboxed kernel process driven with numbered requests.
- ``template.py``: `Template`, a warm sandbox that forks a fresh one per student
  (`ForkedKernel`).
- ``inside/``: the program inside the sandbox, a package of small modules; it imports
  nothing from the grader, and the grader imports only its ``shared.py``.
"""

from ..settings import SandboxError
from .cgroups import SandboxCgroups
from .channel import OUTPUT_CAP, CellOutcome, CellStatus, GraderFault, death_reason
from .command import (bwrap_available, require_sandbox, sandbox_command, sandbox_problem,
                      sandbox_uid)
from .inside.shared import MESSAGE_CAP, SANDBOX_HOME, SANDBOX_WORK
from .kernel import Kernel
from .package_copy import sandboxed_package
from .template import ForkedKernel, Template

__all__ = ["MESSAGE_CAP", "OUTPUT_CAP", "SANDBOX_HOME", "SANDBOX_WORK", "CellOutcome",
           "CellStatus", "ForkedKernel", "GraderFault", "Kernel", "SandboxCgroups", "SandboxError", "Template",
           "bwrap_available", "death_reason", "require_sandbox", "sandbox_command",
           "sandbox_problem", "sandbox_uid",
           "sandboxed_package"]
