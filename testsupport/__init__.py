"""What the tests and the benchmarks share; not part of the course's packages.

    course          the repository's root, its assignments (the folders of solutions/),
                    the instructor's answers without their solution markers, copies of
                    the course and the environment nbgrader and the grader run in
    gradebook       what grading left in a gradebook, read back
    synthetic_batch generated batches of submissions (scaling tests, grading benchmark)
    postgres        a throw-away PostgreSQL server on 127.0.0.1

The tests find this package through pytest's ``pythonpath`` (pyproject.toml); the
benchmarks put the repository's root on ``sys.path`` themselves.
"""
