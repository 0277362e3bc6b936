"""A hardened autograder for nbgrader assignments. Run ``python -m grader --help``.

Student code runs cell by cell in a bubblewrap sandbox, which then only answers
questions about what it defined; the test cells run in the grader's own process
against those answers; one writer records the results in nbgrader's gradebook.

The modules, in the order a run passes through them:

- ``__main__.py``: the command line of ``autograde`` and ``summary`` (arguments only).
- ``course.py``: the course's settings. nbgrader_config.py checked and read,
  ``SandboxGrader`` (the grader's own settings, the one home of their defaults),
  the assignment's state in the gradebook, the functions students must write.
- ``run.py``: one autograding run. Which students, which are refused, where they
  are graded (this process, a pool of processes, a Dask cluster), the run's
  temporary folders and the removal of what killed runs left.
- ``grade.py``: one student, from a ``Job`` (plain data) to a ``StudentResult``:
  the notebook's plan run in sandboxed kernels, the checks in a ``Checker``.
- ``notebooks.py``: reading a submission defensively; the plan of cells to run.
- ``sandbox.py``: the sandbox and its channel. bubblewrap kernels, warm templates
  and their forks, cgroups, the course package copy with the answers stubbed.
- ``runner.py``: the script inside the sandbox (imports nothing from here).
- ``checker.py``: the instructor's checks, against values decoded from the sandbox.
- ``results.py``: the typed result of one student, from the worker to the writer.
- ``record.py``: the single writer. Gradebook, autograded notebooks, grade reports,
  summary.txt and the report pages, in a fixed order.
- ``files.py``: files written whole, and what dead processes left (owner tags).
- ``summary.py``, ``report_page.py``, ``export.py``: what the reports and exports
  say (record.py and export.py write them); ``roster.py``: the class list.
- ``instructor.py``, ``rehearsal.py``: the instructor's other commands and a whole
  fake class; ``feedback.py`` keeps hidden tests out of feedback;
  ``nbgrader_guard.py`` keeps nbgrader's own autograde away from this course.
"""
