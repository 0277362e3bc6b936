"""The terms wing: a course carried from one term to the next, and a finished term kept.

- ``places.py``: where a term's own state lives in a course folder, as each wing writes
  it (`term_folders`, `is_term_state`), and which of it holds a student's work or
  values (`student_work`).
- ``new_term.py``: `start_new_term`, next term's course in a new folder: the course's
  own content only (`carried_files`, an allow-list), due dates moved by whole weeks on
  the course's clock, a new salt, a course id of its own, nothing of this term's state
  (make new-term).
- ``archive.py``: `write_archive`, the term's data and what regrading it needs in one
  archive with its checksum file, and `read_archive`, which checks both (make
  archive-term).
- ``retention.py``: `purge_term`, the students' work and values removed after the grace
  period and a confirmation, the grade record kept; `restore_term`, an archive put back
  (make restore-term).
- ``commands.py``: the three commands of ``python -m grader``.
"""

from .archive import TermArchive, read_archive, write_archive
from .new_term import NewTerm, carried_files, next_course_id, shifted, start_new_term, \
    weeks_to_shift
from .places import is_term_state, student_work, term_folders
from .retention import purge_term, restore_term

__all__ = ["NewTerm", "TermArchive", "carried_files", "is_term_state", "next_course_id",
           "purge_term", "read_archive", "restore_term", "shifted", "start_new_term",
           "student_work", "term_folders", "weeks_to_shift", "write_archive"]
