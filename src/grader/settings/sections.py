"""The grader's settings that are not the sandbox's, each on the configurable of what reads it.

As nbgrader keeps each setting on the class that uses it (``c.CourseDirectory.root``,
``c.Execute.timeout``), these are set as ``c.ClassName.name = value`` in
nbgrader_config.py and read once, in `settings.load` (`DaskCluster` by the one command
that makes the certificates):

- `Reports`: where the grade reports go (``c.Reports.directory``).
- `SimilarityReport`: which pairs the similarity report lists, and which code is
  too common to count (``c.SimilarityReport.threshold``, ``.common_fraction``).
- `StudentVariants`: the salt of each student's own model (``c.StudentVariants.salt``).
- `GradebookWriter`: how long a run waits for a gradebook that stopped answering
  (``c.GradebookWriter.retry_seconds``).
- `DaskCluster`: the names the certificates of the course's Dask cluster carry
  (``c.DaskCluster.authority_name``, ``.certificate_name``; make dask-certs).
- `TermRetention`: how long the students' files are kept after a term is archived
  (``c.TermRetention.grace_days``; make archive-term).
- `TermCarryOver`: what of the course folder next term's course is made of
  (``c.TermCarryOver.carried``; make new-term).

The first four were settings of `SandboxGrader` before; the old names still work
(renamed.py).
"""

from traitlets import Float, Int, List, Unicode
from traitlets.config import Configurable


class Reports(Configurable):
    """Where the grade reports go: summary.txt, the report page, grades.csv, the LMS exports,
    the similarity reports."""

    directory = Unicode("", help="where grade reports go (default: reports/ beside the "
                        "submitted/ folder)").tag(config=True)


class SimilarityReport(Configurable):
    """What `make similarity` lists (reports/similarity-<assignment>.csv and .html)."""

    threshold = Float(0.6, min=0.0, max=1.0,
                      help="the similarity (0 to 1) at which the similarity report lists a "
                      "pair of students (make similarity)").tag(config=True)
    common_fraction = Float(0.2, min=0.0, max=1.0,
                            help="code that more than this share of the class wrote alike is "
                            "no evidence of copying").tag(config=True)


class StudentVariants(Configurable):
    """Each student's own model (the course package makes it, as this course's
    gptcourse.variants does), derived from the student id and a salt."""

    salt = Unicode("", help="the salt of each student's own model, written into the "
                   "notebooks as COURSE_SALT: change it each term, then make release"
                   ).tag(config=True)


class GradebookWriter(Configurable):
    """How a run records into the gradebook when the database stops answering."""

    retry_seconds = Float(120.0, min=0.0,
                          help="how long a run waits for a gradebook database that stopped "
                          "answering, trying again, before it stops grading (the same "
                          "command then grades the students not recorded)").tag(config=True)


class DaskCluster(Configurable):
    """The names the certificates of `make dask-certs` carry (dask_tls.py)."""

    authority_name = Unicode("grader Dask authority",
                             help="the common name of the Dask cluster's own certificate "
                             "authority (make dask-certs)").tag(config=True)
    certificate_name = Unicode("grader Dask cluster",
                               help="the common name of the certificate the Dask scheduler, "
                               "its workers and the grader present (make dask-certs)"
                               ).tag(config=True)


class TermRetention(Configurable):
    """How long a finished term's students' files stay after `make archive-term`."""

    grace_days = Int(180, min=0, help="days after both the term's archive was written and its "
                     "last due date (extensions included) before make archive-term PURGE=1 "
                     "CONFIRM=yes may remove the students' work and what shows it (the "
                     "grades and the item analysis stay)").tag(config=True)


# the course's own content at the top of this course's folder, besides its notebooks
# (c.CourseDirectory.source_directory, release_directory), rubrics/ and nbgrader_config.py
CARRIED = ["Makefile", "pyproject.toml", "requirements*.txt", "requirements*.lock", "*.md",
           "LICENSE*", ".gitignore", ".gitattributes", "_config.yml", "_toc.yml", ".github",
           ".ci", "book", "src", "docs", "tests", "testsupport", "benchmarks", "deploy"]


class TermCarryOver(Configurable):
    """What `make new-term` carries into next term's course: an allow-list of the course's
    own content; the rest of the folder (the term's data and records) stays behind."""

    carried = List(Unicode(), default_value=CARRIED, help="the names (or shell patterns) at "
                   "the top of the course folder that make new-term copies into next term's "
                   "course, a folder with what is in it, besides nbgrader_config.py, the "
                   "notebooks and rubrics/, which it always copies; nothing else is carried "
                   "(no run-time data, released-solutions record, extensions, regrade "
                   "requests)").tag(config=True)
