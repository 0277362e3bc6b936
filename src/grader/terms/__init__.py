"""The terms wing: a course carried from one term to the next, and a finished term kept.

- ``new_term.py``: `start_new_term`, next term's course in a new folder (due dates
  moved by whole weeks on the course's clock, a new salt, the course id's term, no
  students) (make new-term).
- ``archive.py``: `write_archive`, the term's data in one archive with its checksum
  file, and `read_archive`, which checks both (make archive-term).
- ``retention.py``: `purge_term`, the students' files removed after the grace period
  and a confirmation, grades and item analysis kept; `restore_term`, an archive put
  back (make restore-term).
- ``commands.py``: the three commands of ``python -m grader``.
"""

from .archive import TermArchive, read_archive, write_archive
from .new_term import NewTerm, shifted, start_new_term, weeks_to_shift
from .retention import purge_term, purged_folders, restore_term

__all__ = ["NewTerm", "TermArchive", "purge_term", "purged_folders", "read_archive",
           "restore_term", "shifted", "start_new_term", "weeks_to_shift", "write_archive"]
