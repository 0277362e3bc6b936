"""A hardened autograder for nbgrader assignments. Run ``python -m grader --help``.

Student code runs cell by cell in a bubblewrap sandbox, which then only answers
questions about what it defined; the test cells run in the grader's own process
against those answers; one writer records the results in nbgrader's gradebook.

It is a distribution of its own, ``course-grader`` (pyproject.toml in this folder),
installed beside the course's package, never inside it. Everything it knows of a
course comes from that course's nbgrader_config.py: the package students import
(``c.SandboxGrader.course_package``), who sees every student's page, the Dask
certificates' names (docs/another-course.md). torch is loaded only where the
course's package uses it.

The house, floor by floor: a module imports only from its own wing or from a
floor below it, never round in a circle (tests/units/test_imports.py). A wing
is a subpackage whose ``__init__.py`` names what it offers. The floors are
derived from the imports (0: nothing of ours outside itself; else one above the
highest floor it imports), and the test checks this list against them:

- floor 7: __main__.
- floor 6: cli.
- floor 5: autograde, handback, lti, regrade, service.
- floor 4: engines, grading_page, intake, push, rehearsal.
- floor 3: explain, publish, reports, terms, worker.
- floor 2: checks, recording, similarity.
- floor 1: dask_tls, plan, plugins, rubric, sandbox.
- floor 0: cells, deadlines, files, lms, numerics, report_shell, results, safe_text, settings, student_server.

The core grades and records (the ground floor's modules, plugins/, settings/,
sandbox/, plan/, checks/, worker/, recording/, engines.py, autograde.py,
dask_tls.py); the course-operations add-ons (publish/, terms/, explain/, rubric/,
rehearsal/, similarity/, lms/, lti/, push/, grading_page/) are never imported by it. They
meet
it at named seams: each wing adds its own commands (an ``add_..._commands``
function and its table of runs, put together by cli.py), a grade push is a
`GradePush` plugin class chosen by ``c.GradePush.plugin_class``, an
after-grading add-on subscribes to the grading service's events (``graded``,
``settled``, ``released``, service/queue/events.py), and settings are read by the
class that reads them.

Top floor, the instructor's commands:

- ``cli.py`` (``__main__.py``): ``python -m grader COMMAND``, every wing's
  commands put together.
- ``autograde.py``: one autograding run: the assignment prepared once, which
  students, which are refused, each result to the single writer; the
  ``autograde`` command.
- ``engines.py``: where students are graded: a pool of forked processes or a
  Dask cluster (the `Engine` that `engine()` yields), through one path
  (`graded`), fed by a list of hand-ins (a batch) or a `HandInQueue` that
  blocks until the next one arrives, results collected while it waits.
- ``rehearsal/``: whole fake classes on this machine, through the exchange or an LMS,
  and a small LTI 1.3 platform for ``rehearse-lti``.
- ``regrade/``: a class graded again after a check changed: a dry run that shows who
  changes (and which regrade requests that answers) and writes only its record,
  then exactly those students recorded again, their feedback saying why.
- ``service/``: hand-ins graded as they arrive (``python -m grader serve``), in three
  rooms that import one way (the page -> after-grading -> the queue). ``queue/``: the
  durable queue (`Store`: bytes stored by their SHA-256, then a `QueuedJob` row in
  SQLite or in the gradebook's PostgreSQL, claimed under a lease; where it came from a
  `JobSource`, how its feedback went out a `ReleaseOutcome`), the exchange watched,
  one warm engine per release (a new release switched to while it runs) and the
  events add-ons hang on (`EventHub`: graded, settled, released). ``after/``: one
  poller of settled grades, each student's feedback released at their due date and
  their grade pushed once final. The students' page and the commands beside them.
- ``dask_tls.py``: the Dask cluster's TLS: the certificates of `make dask-certs`,
  what the grader connects with, a tcp:// address refused unless allowed.

The wings, from the top down:

- ``grading_page/``: the staff's grading page of the explain answers (``grading-page``):
  each answer's numbers read as written and named by the student's own values, the
  answers grouped by reasoning (TF-IDF and a clustering of scikit-learn, the grading
  page's extra, loaded only to group; blank answers a group of their own, each group
  labelled by its most telling words), the numbers that are another student's value
  flagged for a person, never scored; who grades whom (the class shared among the
  graders by section, at random with a seed or as in a previous assignment, kept in
  course-data/grading-page/), who may score and move whom, what is left; each mark
  written compare-and-set into the gradebook and the explain record.
- ``explain/``: the written answer a person grades by its rubric (``grade-explain``: the
  class in a seeded order kept between sittings, items applied by key, the score and the
  composed comment written into nbgrader's gradebook, everyone regraded when an item's
  points change) and the defend-your-answer sheets (``defense-questions``).
- ``lti/``: the course as an LTI 1.3 tool of the LMS: the platform's registration, the
  tool's keys, the launch checked, the roster through NRPS (``lti-roster``) and the
  grades through AGS (``lti-push``), one line item per assignment.
- ``publish/``: the course made public without its answers (``make publish``): the
  bundle _publish/ (the site, the released notebooks, the students' wheel) written whole,
  every byte of it searched for the solutions and hidden tests of solutions/ first;
  the bundle committed to a separate public repository; an assignment's solutions,
  hidden tests out, once no student can still hand it in for points under the late policy.
- ``terms/``: a course carried from one term to the next (``new-term``: the course's own
  content only, due dates moved by whole weeks on the course's clock, a new salt and
  course id, nothing of this term's state) and a finished term kept (``archive-term``: one
  archive with its checksum, then every file of the students' work or values removed
  after a grace period, the grade record kept; ``restore-term``).
- ``push/``: grades sent into an LMS's own gradebook (``push-grades``, ``canvas-push``)
  through one plugin class, `GradePush`, chosen by ``c.GradePush.plugin_class`` as
  nbgrader's export plugin is (Canvas's REST API by default, LTI AGS in lti/): what
  each student's grade and comment are, compared with what the LMS holds, then sent
  where they differ, each row's `PushOutcome` reported and the rows counted
  (`PushCounts`) in a `PushReport`.
- ``handback/``: feedback back to every student: through nbgrader's exchange
  for those who handed in through it, and one zip named as the LMS takes it back
  for those collected from an LMS.
- ``intake/``: an LMS's download taken in: the zip checked whole before anything
  is written, each file matched to a student and a notebook as its LMS's class
  says, and `collect_zip`, which puts each student's latest notebook in
  submitted/ through nbgrader's zip_collect, records what came from the LMS and
  returns a `CollectOutcome` with its counts.
- ``reports/``: what the grades say. The roster, grades read from the gradebook,
  summary.txt, the report page, grades.csv and the LMS exports, and the item
  analysis (each check's difficulty and discrimination).
- ``rubric/``: the rubric of an explain question kept as data, rubrics/<assignment>.yaml,
  read and checked (a bad file refused with its line).
- ``similarity/``: which students' answers look alike: code fingerprinted
  (winnowing over normalised tokens), shared code discounted, every pair
  compared, reports/similarity-<assignment>.csv and .html.
- ``recording/``: the single writer (`Writer`, which returns a `RecordingFailure` for a
  student it could not record) and what it writes: gradebook
  rows, autograded notebooks, each student's part of the grade report; the
  gradebook's record of the release, the due dates, the students' extensions
  (none past an assignment's public solutions unless told) and the late penalties;
  how late each student may still hand an assignment in for points; the record of
  the solutions made public.
- ``worker/``: one student graded, from a `Job` of plain data to a
  `StudentResult`: the `Assignment` prepared once (its instructor notebooks as
  `instructor_texts`), the plan executed in
  sandboxed kernels, the autograded notebook, what a worker keeps warm (per
  assignment and release).
- ``checks/``: the instructor's test cells, run here against the answers:
  answer names, values decoded from the kernel, the `Checker`.
- ``plan/``: a submission read defensively, and the plan of cells to run;
  the `HandIn`, and why one is refused.
- ``sandbox/``: where student code runs: the bubblewrap command line,
  cgroups, the stubbed package copy, the `Kernel` and its channel, the warm
  `Template` and its forks, and ``inside/``, the package inside the sandbox,
  which imports nothing of the grader (the grader imports its ``shared.py``).
- ``settings/``: the course's settings as nbgrader reads them
  (`CourseDirectory`), and every class of the grader's own settings (one
  convention: all here, save `CanvasPush`, which names an LMS and so is lms/'s):
  `SandboxGrader` (the sandbox's and the course package) with `Limits`, `Reports`,
  `SimilarityReport`, `StudentVariants`, `GradebookWriter`, `DaskCluster`, the
  service's, `LtiTool`, `AiPolicy` (old names still read, with a warning); the check of
  nbgrader_config.py, the variant salt written into the notebooks, and the two
  errors that are the instructor's to fix.

The ground floor, used by every wing:

- ``safe_text.py``: student-made text made safe to write and show; the one
  student-id check.
- ``files.py``: files written whole, and what dead processes left (owner tags).
- ``numerics.py``: how OpenMP and MKL run in the grader and in every sandbox, set before
  torch loads (one thread each, MKL's buffers from malloc): the grader forks.
- ``results.py``: the typed result of one student, with its status enums.
- ``deadlines.py``: a student's deadline (`Deadline`): the class's due date and their
  extension, aware UTC; the one reader of an assignment's ``duedate``.
- ``report_shell.py``: the shell of the course team's HTML pages (grade report, item
  analysis, similarity report): one self-contained file each, its style inline.
- ``cells.py``: one notebook cell's source, nbgrader metadata, role (`CellKind`) and docstring,
  and whether it reads the student's id (then it runs for each student).
- ``plugins/``: the classes nbgrader_config.py names, which nbgrader loads by
  name: the feedback page (its template in ``templates/feedback/``) without
  hidden tests, nbgrader's own autograde refused, and the late policies (a
  percentage per day, a late-day budget) with what each student's late
  assignments are charged, and the course's AI policy put into the released notebooks.
- ``lms/``: one class per LMS (`Canvas`, `Moodle`, subclasses of `Platform`): the
  names of its download's files, how a file is matched to the roster, what its
  late flag means, where feedback goes back, its gradebook CSV; `platform(name)`
  and the default LMS; the push's API (`LmsCourseApi`, a Protocol) and Canvas's
  settings (`CanvasPush`). It needs nothing of the grader, so every wing may ask it.
"""
