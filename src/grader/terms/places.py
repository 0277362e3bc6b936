"""Where a term's own state lives in a course folder, as each wing writes it.

A term's state is what the course's commands write while the term runs; next term's
course carries none of it (new_term.py), the archive holds all of it (archive.py), and
the purge removes what of it holds a student's work or values (retention.py):

- at the course folder's top: ``solutions-released.csv`` (make release-solutions: whose
  solutions are public), ``extensions.csv``, ``regrade-requests.csv`` and
  ``gradebook-url.txt`` (this term's database);
- the run-time data folder (course-data/, the submitted folder's parent): the gradebook,
  the notebooks, the feedback, the grading service's queue, its stored hand-ins
  (service/blobs/) and the students' checks (service/checks/), the regrade records, the
  explain grading state (explain/<assignment>.json), the roster, the exports, the LMS's
  and the LTI tool's records, a local exchange, the rehearsals;
- the reports folder (``c.Reports.directory``, course-data/reports/ unless set): the
  grade report (each student's part in reports/<assignment>/, the rows in
  <assignment>.csv and .json), summary.txt, the report pages, the item analysis, the
  similarity reports (similarity-<assignment>.csv, .html) and the defense sheets
  (defense-<assignment>/);
- nbgrader's exchange where the course's settings put it inside the course folder;
- what is made from the term: the published bundle (_publish/), the archives
  (term-archives/).

The wings that write these files are above this floor (publish/, explain/, service/), so
their names are written here again; tests/units/terms/test_places.py ties each one to
the wing's own.
"""

import fnmatch
import os

from ..recording import EXTENSIONS_FILE
from ..settings import Settings

SOLUTIONS_RECORD = "solutions-released.csv"  # publish/solutions_policy.py's RECORD_FILE
REQUESTS_FILE = "regrade-requests.csv"  # regrade/requests.py's
DB_URL_FILE = "gradebook-url.txt"  # nbgrader_config.py's: this term's database, a password
# the files at the top of the course folder that are a term's: never carried to the next
TERM_RECORDS = (SOLUTIONS_RECORD, EXTENSIONS_FILE, REQUESTS_FILE, DB_URL_FILE)
# of them, those the archive holds (the database's URL may hold its password)
ARCHIVED_RECORDS = (SOLUTIONS_RECORD, EXTENSIONS_FILE, REQUESTS_FILE)
ARCHIVE_FOLDER = "term-archives"
BUNDLE_FOLDER = "_publish"  # publish/bundle.py's
# the folders of the data folder that hold students' work or values: their notebooks and
# tries, the LMS's files, the simulated students' homes, and the explain grading state (the
# items applied to each answer, the comments filled with each student's values)
STUDENT_FOLDERS = (os.path.join("service", "blobs"),  # service/queue/store.py: course_store
                   os.path.join("service", "checks"),  # service/submitted.py's checks_folder
                   "exchange", "students", "student-work", "lms",
                   "explain")  # explain/grading.py's state_path
# in the reports folder, what shows students' code or values: the defense sheets (their
# code and their model's numbers), the similarity reports (their code side by side)
DEFENSE_SHEETS = "defense-*"  # explain/defense.py's folders
SIMILARITY_REPORTS = ("similarity-*.csv", "similarity-*.html")  # similarity/report.py's


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it (both absolute)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def exchange_root(settings: Settings) -> str | None:
    """nbgrader's exchange as the course's nbgrader_config.py sets it (c.Exchange.root, an
    absolute real path), or None where it sets none: then the machine's nbgrader
    configuration or nbgrader's default decides, one exchange for every course there."""
    config = settings.config
    root = config.get("Exchange", {}).get("root") if config is not None else None
    return os.path.realpath(os.path.join(settings.root, root)) if root else None


def term_folders(settings: Settings) -> list[str]:
    """The folders (absolute) whose every file is the term's (see the module's docstring)."""
    folders = [settings.data, settings.reports, settings.submitted, settings.autograded,
               settings.feedback, os.path.join(settings.root, BUNDLE_FOLDER),
               os.path.join(settings.root, ARCHIVE_FOLDER)]
    exchange = exchange_root(settings)
    if exchange and within(exchange, os.path.realpath(settings.root)):
        folders.append(exchange)
    return [os.path.abspath(f) for f in folders]


def is_term_state(settings: Settings, relative: str) -> bool:
    """Whether the file `relative` (to the course folder) is the term's own state."""
    if relative in TERM_RECORDS:
        return True
    path = os.path.abspath(os.path.join(settings.root, relative))
    real = os.path.realpath(path)
    return any(within(path, f) or within(real, os.path.realpath(f))
               for f in term_folders(settings))


def files_under(folder: str, root: str) -> list[str]:
    """Every file under `folder` and every link there (to a folder too, never followed),
    relative to `root`, sorted ([] when it is not there)."""
    found = []
    for parent, subfolders, names in os.walk(folder):
        links = [d for d in subfolders if os.path.islink(os.path.join(parent, d))]
        subfolders[:] = sorted(set(subfolders) - set(links))
        found += [os.path.relpath(os.path.join(parent, n), root) for n in sorted(names + links)]
    return sorted(found)


def student_work(settings: Settings, assignments: list[str]) -> list[str]:
    """The term's files that hold a student's work or values, relative to the course folder,
    sorted: their notebooks, tries and feedback, the explain grading state, and of the
    reports folder each student's part of the grade report with the assignment's rows made
    from them (a check's message quotes what the student's code gave), the similarity
    reports and the defense sheets. `assignments` names the reports' assignments."""
    root = settings.root
    folders = [settings.submitted, settings.autograded, settings.feedback]
    folders += [os.path.join(settings.data, f) for f in STUDENT_FOLDERS]
    exchange = exchange_root(settings)
    if exchange and within(exchange, os.path.realpath(root)):
        folders.append(exchange)
    reports = settings.reports
    names = sorted(os.listdir(reports)) if os.path.isdir(reports) else []
    shown = {f"{a}{end}" for a in assignments for end in (".csv", ".json")}
    files = []
    for name in names:
        path = os.path.join(reports, name)
        if os.path.isdir(path) and (name in assignments or fnmatch.fnmatch(name, DEFENSE_SHEETS)):
            folders.append(path)
        elif os.path.isfile(path) and (name in shown or any(
                fnmatch.fnmatch(name, p) for p in SIMILARITY_REPORTS)):
            files.append(os.path.relpath(path, root))
    for folder in folders:
        files += files_under(folder, root)
    return sorted(set(files))
