"""nbgrader's configuration for this course; nbgrader reads it from the directory it runs in.

Instructor notebooks live in ``solutions/``, the generated student versions in
``exercises/`` (both tracked). Everything grading produces at run time
(submissions, autograded copies, feedback, the gradebook, the exchange) goes
under ``course-data/``, which git ignores.
"""

import os

c = get_config()  # noqa: F821 (nbgrader defines get_config when it loads this file)

ROOT = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(ROOT, "course-data")

# The assignments of this course are the folders of solutions/: the Makefile, the
# grader and the tests list them from there, so none is named in this file.

# --- course directory ---------------------------------------------------------
c.CourseDirectory.course_id = "gptcourse"
c.CourseDirectory.root = ROOT
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.CourseDirectory.submitted_directory = "course-data/submitted"
c.CourseDirectory.autograded_directory = "course-data/autograded"
c.CourseDirectory.feedback_directory = "course-data/feedback"

# --- gradebook ------------------------------------------------------------------
# SQLite under course-data/ unless a database URL is given; the first of these wins:
#   1. the environment variable GPTCOURSE_DB_URL;
#   2. the first line of gradebook-url.txt (beside this file, git-ignored since a URL
#      can hold a password) that is neither blank nor a # comment.
# Graders on several machines share one PostgreSQL gradebook, for example
#   postgresql://grader:secret@db.example.org:5432/gptcourse
# (read with psycopg2, the driver requirements.txt installs: postgresql+psycopg2://)
DB_URL_VARIABLE = "GPTCOURSE_DB_URL"
DB_URL_FILE = os.path.join(ROOT, "gradebook-url.txt")
DEFAULT_DB_URL = "sqlite:///" + os.path.join(DATA, "gradebook.db")


def gradebook_url(environ=os.environ, url_file=DB_URL_FILE):
    """The gradebook's database URL: from the environment, the local file, or the default.

    A malformed URL raises SystemExit naming its source: traitlets logs and skips
    any other exception raised in a config file, and nbgrader would then quietly
    use a gradebook of its own choosing.
    """
    import re

    from sqlalchemy.engine import make_url

    text = environ.get(DB_URL_VARIABLE, "").strip()
    source = f"environment variable {DB_URL_VARIABLE}"
    if not text and os.path.exists(url_file):
        with open(url_file, encoding="utf-8") as handle:
            lines = [(number, line.strip()) for number, line in enumerate(handle, 1)]
        given = [(n, line) for n, line in lines if line and not line.startswith("#")]
        if not given:
            raise SystemExit(f"{url_file}: no database URL in it (every line is blank or "
                             f"a # comment); write one or delete the file")
        number, text = given[0]
        source = f"{url_file}, line {number}"
    if not text:
        os.makedirs(DATA, exist_ok=True)  # SQLite creates the file, not its folder
        return DEFAULT_DB_URL

    def fail(why):
        shown = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", text)  # hide a password
        raise SystemExit(f"gradebook URL {shown!r} from {source}: {why}; expected e.g. "
                         f"postgresql://user:password@host:5432/gradebook "
                         f"or sqlite:////absolute/path/gradebook.db")

    if text.startswith("postgres://"):  # the short scheme some hosts hand out
        text = "postgresql://" + text[len("postgres://"):]
    if text.startswith("postgresql://"):  # SQLAlchemy 2 would pick psycopg 3, not installed
        text = "postgresql+psycopg2://" + text[len("postgresql://"):]
    try:
        url = make_url(text)
        url.get_dialect()
    except Exception as error:  # sqlalchemy raises several kinds for a bad URL
        fail(f"not a database URL ({error})")
    backend = url.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        fail(f"the gradebook supports sqlite and postgresql databases, not {backend!r}")
    if not url.database or url.database == ":memory:":
        fail("it names no database (an in-memory SQLite gradebook would lose every grade)")
    if backend == "sqlite" and not os.path.isabs(url.database):
        url = url.set(database=os.path.join(ROOT, url.database))  # relative to the course
    return url.render_as_string(hide_password=False)


c.CourseDirectory.db_url = gradebook_url()

# --- exchange (where released, submitted and feedback files travel) -----------
# On a JupyterHub the exchange is set once for every server, in the machine's
# nbgrader configuration (docs/jupyterhub.md), and that setting is kept. Without
# one, course-data/exchange lets one machine rehearse the whole loop.
LOCAL_EXCHANGE = os.path.join(DATA, "exchange")
READING_MACHINE_CONFIG = "GPTCOURSE_READING_MACHINE_CONFIG"  # set while the files below load


def machine_exchange_root(here=__file__):
    """c.Exchange.root as an nbgrader configuration of the machine or user sets it, or None.

    Reads nbgrader_config.py/.json in every folder of `jupyter --paths` config but
    this file's own. A grader's configuration there may load this file: while it
    loads, this file sets no exchange, so the grader's own setting is the one found.
    """
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config.loader import JSONFileConfigLoader, PyFileConfigLoader

    own = os.path.dirname(os.path.realpath(here))
    os.environ[READING_MACHINE_CONFIG] = "1"
    try:
        for folder in jupyter_config_path():
            if os.path.realpath(folder) == own:
                continue
            for name, loader in (("nbgrader_config.json", JSONFileConfigLoader),
                                 ("nbgrader_config.py", PyFileConfigLoader)):
                if os.path.isfile(os.path.join(folder, name)):
                    config = loader(name, path=folder).load_config()
                    if config.get("Exchange", {}).get("root"):
                        return config.Exchange.root
        return None
    finally:
        del os.environ[READING_MACHINE_CONFIG]


if READING_MACHINE_CONFIG not in os.environ and machine_exchange_root() is None:
    c.Exchange.root = LOCAL_EXCHANGE

# --- execution while autograding ----------------------------------------------
# Seconds one cell may run; the slowest cell builds the 124M model (a few seconds).
c.Execute.timeout = 60
# Seconds one whole notebook may run, kernel restarts and the replays after them included,
# however many cells it adds; the cells still waiting when it runs out are not run (their
# checks earn nothing). 0 means three times c.Execute.timeout: here 180 seconds.
c.SandboxGrader.notebook_budget = 0
# Seconds the grading of one student may take in all, the checks' own code and their
# set-up included: a grading worker still at it then is stopped (its stack goes to the
# grader's error output) and the student is not graded, rather than holding the run.
# 0 means the notebooks' budgets and 300 seconds.
c.SandboxGrader.student_budget = 0

# --- deadlines ------------------------------------------------------------------
# `make release DUEDATE="2026-12-01 17:00:00 UTC"` records an assignment's due date in
# the gradebook; `make extensions` gives students their own (extensions.csv, see
# docs/deadlines.md). A notebook handed in after the student's due date gets the late
# penalty of the policy chosen here; with a due date of Monday 17:00 and a notebook worth 10:
#   - nbgrader's "zero" (this course's): a late notebook scores 0, 1 minute late or 3 days;
#   - nbgrader's "none": late notebooks keep every point;
#   - a percentage per day late, with a floor: with the lines below, 1 minute late
#     scores 9, 25 hours late 8, six days late 5 (the floor: half the score is kept):
#       c.AssignLatePenalties.plugin_class = "grader.plugins.late.PercentPerDay"
#       c.PercentPerDay.percent = 10
#       c.PercentPerDay.part_day_counts = True   # False: 25 hours is 1.04 days, 8.96
#       c.PercentPerDay.floor_percent = 50
#   - a late-day budget: 5 days per student for the whole course, spent in due-date
#     order, whole days per assignment (25 hours spends 2); no penalty while days
#     remain, then the `after` policy for the lateness they do not cover (here "zero";
#     set it to grader.plugins.late.PercentPerDay for a percentage):
#       c.AssignLatePenalties.plugin_class = "grader.plugins.late.LateDayBudget"
#       c.LateDayBudget.days = 5
#       c.LateDayBudget.after = "nbgrader.plugins.LateSubmissionPlugin"
# A late-day budget is charged from the whole gradebook: when an earlier assignment is
# handed in late or graded again, the student's later ones are charged again.
c.LateSubmissionPlugin.penalty_method = "zero"

# --- grader ---------------------------------------------------------------------
# `python -m grader autograde` (make autograde) runs each notebook in a bubblewrap
# sandbox: c.Execute.timeout above is its limit per cell; this is the memory of each
# sandbox, the kernel and its processes together (per process where the machine has no
# cgroups; `make autograde` prints which). Its grade report goes to course-data/reports/.
c.SandboxGrader.memory_mib = 3072
# Inside the sandbox, the course package's functions that an assignment asks students
# to write are stubs that say "write your own"; these compute answers too
# (sample_next_token with top_k=1 is the greedy choice the homework asks for):
c.SandboxGrader.also_blocked = ["build_on_meta", "parameter_breakdown", "parameter_summary",
                                "sample_next_token"]
# Each student's value questions are about a model of their own, derived from their student
# id and this salt (docs/variants.md). Change it each term: `make release` writes it into the
# notebooks, so last term's answers fit no one's model.
c.StudentVariants.salt = "2026-fall"
# `make similarity` lists the pairs of students whose answers are at least this similar
# (0 to 1), and counts no code that more than this share of the class wrote alike
# (docs/similarity.md). The report is evidence for a person to read; it changes no grade.
c.SimilarityReport.threshold = 0.6
c.SimilarityReport.common_fraction = 0.2
# Feedback shows each test cell's docstring and failure message, never its code
# (nbgrader's default feedback would reveal the hidden tests).
# A cell still to be graded by hand (an explain answer) says so, never "missed".
c.GenerateFeedback.preprocessors = [
    "grader.plugins.feedback.GetGradesOrWaiting",
    "grader.plugins.feedback.HideTestCode",
]
# Each student's page is the course's own template (src/grader/templates/feedback/): a
# summary of every check (what it checks, its points, why a missed one failed, a link to
# its cell), the score, then the notebook; it loads nothing from the web and meets WCAG 2.1
# AA (tests/instructor/test_feedback_page.py).
c.GenerateFeedback.exporter_class = "grader.plugins.feedback.FeedbackPage"

# --- the course's AI policy (docs/instructor.md) ---------------------------------
# An assignment's AI policy, a few sentences of markdown (at most 2,000 characters), is
# shown to its students in each of its notebooks (a locked cell after the introduction,
# which `make release` writes), on the site's homework page and on their feedback page;
# an assignment not named here has none and shows none. With declaration = True, each
# notebook with a policy also has a cell after it where the student says which AI they
# used: never graded, read by the staff beside the answer. For example:
#   c.AiPolicy.policies = {"an-assignment": "You may ask an AI assistant to explain an error "
#                             "message; write every answer yourself."}
#   c.AiPolicy.declaration = True
c.AiPolicy.policies = {}
c.AiPolicy.declaration = False
# nbgrader's own steps of `nbgrader generate_assignment`, after the one that adds the
# policy's cells (grader.plugins.ai_policy; it adds nothing to an assignment without one)
c.GenerateAssignment.preprocessors = [
    "grader.plugins.ai_policy.AiPolicyCells",
    "nbgrader.preprocessors.IncludeHeaderFooter",
    "nbgrader.preprocessors.InstantiateTests",
    "nbgrader.preprocessors.LockCells",
    "nbgrader.preprocessors.ClearSolutions",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.CheckCellMetadata",
    "nbgrader.preprocessors.ComputeChecksums",
    "nbgrader.preprocessors.SaveCells",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbgrader.preprocessors.ClearMarkScheme",
    "nbgrader.preprocessors.ComputeChecksums",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# --- publishing (docs/publishing.md) -------------------------------------------
# `make publish` writes _publish/: the site, the released notebooks and the students' wheel
# of gptcourse, for a static host to serve as it is. Give here the address it is served
# at: `make release` then writes the released notebooks' install line (their first cell,
# which installs the package off the hub) as that wheel's address there, its sha256
# pinned. https only (http only for 127.0.0.1, a site served on this machine); never this
# repository's own address, which holds solutions/. Empty: no install line, and students
# off the hub must ask for one. For example:
#   c.CourseSite.url = "https://your-org.github.io/gptcourse/"
c.CourseSite.url = ""

# --- nbgrader's own autograde is refused ---------------------------------------
# `nbgrader autograde` and formgrader's Autograde button would run student code
# outside the sandbox and overwrite the sandboxed grades; they stop, before
# touching any file or grade, with a message that says to run `make autograde`.
c.Autograde.exporter_class = "grader.plugins.nbgrader_guard.SandboxedGradingOnly"

# --- what the grader knows of this course ---------------------------------------
# The grader is a distribution of its own (course-grader, src/grader/); everything it
# knows of this course is set here (docs/another-course.md).
# The package the students import: its answers' functions are stubs in the sandbox and its
# own functions earn nothing in a check.
c.SandboxGrader.course_package = "gptcourse"
# The Unix group whose members see every student's hand-ins on the grading service's page
# (deploy/: the hub's graders).
c.ServicePage.instructors_group = "gptcourse-graders"
# The names the certificates of `make dask-certs` carry (docs/scaling.md).
c.DaskCluster.authority_name = "gptcourse Dask authority"
c.DaskCluster.certificate_name = "gptcourse Dask cluster"
