"""The checks wing: the instructor's test cells, run in the grader's own process.

- ``answers.py``: which names the solution cells bind.
- ``values.py``: answers decoded from the kernel's plain JSON; arguments sent by pickle.
- ``checker.py``: `Checker`, one notebook's test cells run against proxies of the
  student's answers.
"""

from .answers import answer_names, without_magics
from .checker import Checker, CallContext, KernelLost
from .values import ArgumentPickler, decode, opaque_class

__all__ = ["ArgumentPickler", "CallContext", "Checker", "KernelLost", "answer_names", "decode",
           "opaque_class", "without_magics"]
