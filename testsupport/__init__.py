"""What the tests and the benchmarks share; not part of the course's packages.

    course          the repository's root, its assignments (the folders of solutions/),
                    the instructor's answers without their solution markers, copies of
                    the course (released once per process, or ready for `make`), `make`
                    in a copy, the environment nbgrader and the grader run in, and the
                    grader run on a course (run_grader)
    hand_in         a submission written where `nbgrader collect` puts it
    gradebook       what grading left in a gradebook, read back
    tiny_course     the grader's tiny assignment (a course released once per process) and
                    filled-in notebooks of it
    network         a free TCP port on 127.0.0.1
    bad_submissions hostile and broken submissions of the tiny assignment
    assignments/    the registry: one module per assignment (folder of solutions/), its
                    row: the reference values every per-assignment test reads, its model
                    students and their scores, its honest styles and Colab changes
                    (docs/adding-an-assignment.md)
    assignment_row  what a row holds (AssignmentRow) and a model student (Student)
    notebook_changes  what a student changes in a solved notebook, and a Style of them
    notebook_contract  the rules every notebook of solutions/ keeps, checked cell by cell
    honest_students honest notebooks of the course's assignments in many ordinary styles
    grading         submissions of the real assignments built and graded as a batch
    synthetic_batch generated batches of submissions (scaling tests, grading benchmark)
    scaling         one such batch graded in parallel, in shards, on Dask or PostgreSQL
    dask_cluster    a Dask scheduler and workers on 127.0.0.1
    hub             a real JupyterHub from deploy/, with real accounts
    postgres        a throw-away PostgreSQL server on 127.0.0.1
    machine_load    a share of one core and a forking process for what a test starts
    term_state      a file of every kind a term leaves in a course folder (make new-term,
                    archive-term)

The tests find this package through pytest's ``pythonpath`` (pyproject.toml); the
benchmarks put the repository's root on ``sys.path`` themselves.
"""
