"""A hardened autograder for nbgrader assignments.

Student code runs cell by cell in a bubblewrap sandbox (``sandbox.py`` and the
in-sandbox ``runner.py``), which then only answers questions about what it
defined; the test cells run in the grader's own process against those answers
(``checker.py``), driven by ``grade.py``; one writer records the results in
nbgrader's gradebook (``record.py``). ``feedback.py`` keeps hidden tests out of
student feedback. Run ``python -m grader --help``.
"""
