"""A hardened autograder for nbgrader assignments.

Student code runs cell by cell in a bubblewrap sandbox (``sandbox.py`` and the
in-sandbox ``runner.py``); a trusted driver decides each test's outcome
(``grade.py``) and one writer records it in nbgrader's gradebook
(``record.py``). ``feedback.py`` keeps hidden tests out of student feedback.
Run ``python -m grader --help``.
"""
