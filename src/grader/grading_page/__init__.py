"""The grading page: the staff's page where the answers of an explain question are graded.

- ``numbers.py``: the numbers a student wrote (`written_numbers`, each a `WrittenNumber`)
  and whether one is a given value as people round and spell it (`same_number`).
- ``grouping.py``: each answer (`ExplainAnswer`) normalised by its student's own values
  (`normalise`), the answers grouped by reasoning (`group_answers`, each a `Group`; blank
  answers a group of their own) and the numbers that are another student's value
  (`integrity_flags`, each a `Flag`, never a score).
"""

from .grouping import (ExplainAnswer, Flag, Group, group_answers, integrity_flags, normalise,
                       shown_term)
from .numbers import WrittenNumber, same_number, written_numbers

__all__ = ["ExplainAnswer", "Flag", "Group", "WrittenNumber", "group_answers",
           "integrity_flags", "normalise", "same_number", "shown_term", "written_numbers"]
