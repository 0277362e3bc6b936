"""The grading page: the staff's page where the answers of an explain question are graded.

- ``numbers.py``: the numbers a student wrote (`written_numbers`, each a `WrittenNumber`)
  and whether one is a given value as people round and spell it (`same_number`).
"""

from .numbers import WrittenNumber, same_number, written_numbers

__all__ = ["WrittenNumber", "same_number", "written_numbers"]
