"""The course's settings: its folders, gradebook, limits and package, read as nbgrader reads them.

`load` checks nbgrader_config.py (config_file.check_config), then takes the
folders, the course id and the gradebook's URL from nbgrader's own
`CourseDirectory` and the grader's settings from `SandboxGrader` and the
configurables of sections.py, so that both programs always agree on where
everything is. It is the one place they are read.
"""

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import nbformat
from traitlets.config import Config

from .config_file import check_config
from .errors import CourseError
from .limits import Limits, SandboxGrader, limits_from_config
from .sections import GradebookWriter, Reports, SimilarityReport, StudentVariants

if TYPE_CHECKING:  # nbgrader's preprocessors import slowly: loaded when `late_penalties` runs
    from nbgrader.preprocessors import AssignLatePenalties

# The one PostgreSQL driver the set-up installs (psycopg2-binary in requirements.txt), the
# one nbgrader and its tests use; SQLAlchemy 2 would take psycopg 3 for a plain postgresql://
POSTGRES_DRIVER = "psycopg2"


def with_postgres_driver(db_url: str) -> str:
    """`db_url` with the installed PostgreSQL driver named where it names none: the
    documented postgresql://user:password@host:5432/name (or postgres://...) becomes
    postgresql+psycopg2://...; any other URL is kept as it is."""
    for scheme in ("postgresql://", "postgres://"):
        if db_url.startswith(scheme):
            return f"postgresql+{POSTGRES_DRIVER}://" + db_url[len(scheme):]
    return db_url


def shown_url(db_url: str) -> str:
    """`db_url` as it may be shown: its password replaced by ***."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", db_url)


@dataclass
class Settings:
    root: str
    course_id: str
    source: str
    submitted: str
    autograded: str
    feedback: str  # nbgrader's feedback folder (make feedback writes it)
    reports: str  # c.Reports.directory, or reports/ beside submitted/
    db_url: str
    limits: Limits  # c.Execute.timeout and c.SandboxGrader's limits
    package: str  # the course package students import
    similarity_threshold: float  # c.SimilarityReport.threshold: the pairs the report lists
    similarity_common_fraction: float  # c.SimilarityReport.common_fraction: code too common
    gradebook_retry_seconds: float = 120.0  # c.GradebookWriter.retry_seconds
    also_blocked: tuple[str, ...] = ()  # its functions that compute answers, besides the answers
    variant_salt: str = ""  # c.StudentVariants.salt, written into the notebooks
    config: Config | None = field(default=None, repr=False)
    warnings: list[str] = field(default_factory=list, repr=False)

    def late_penalties(self) -> "AssignLatePenalties":
        """nbgrader's AssignLatePenalties with this course's settings (its plugin_class and
        c.LateSubmissionPlugin.penalty_method), as stock `nbgrader autograde` builds it."""
        from nbgrader.preprocessors import AssignLatePenalties  # imports slowly: when needed

        late = AssignLatePenalties(config=self.config)
        late.init_plugin()
        return late

    @property
    def data(self) -> str:
        """The folder of the run-time data, the submitted/ folder's parent (course-data/)."""
        return os.path.dirname(self.submitted)

    @property
    def assignments(self) -> list[str]:
        if not os.path.isdir(self.source):
            return []
        return sorted(d for d in os.listdir(self.source)
                      if os.path.isdir(os.path.join(self.source, d)) and not d.startswith("."))

    def instructor_notebooks(self, assignment: str) -> dict[str, str]:
        """{notebook name: path} of an assignment's instructor notebooks."""
        folder = os.path.join(self.source, assignment)
        if not os.path.isdir(folder):
            known = ", ".join(self.assignments) or "none"
            raise CourseError(f"unknown assignment {assignment!r}: no folder {folder} "
                              f"(assignments: {known})")
        names = {f[:-6]: os.path.join(folder, f) for f in sorted(os.listdir(folder))
                 if f.endswith(".ipynb") and not f.startswith(".")}
        if not names:
            raise CourseError(f"assignment {assignment!r} has no notebooks in {folder}")
        for path in names.values():
            try:
                with open(path, encoding="utf-8") as handle:
                    nbformat.read(handle, as_version=4)
            except Exception as error:  # noqa: BLE001 (any failure is the instructor's to fix)
                raise CourseError(f"instructor notebook {path} cannot be read: {error}") from None
        return names

    def students(self, assignment: str) -> list[str]:
        """Students with a submitted/<student>/<assignment> entry, sorted.

        Symbolic links are listed too (the grader refuses and reports them),
        so that no submission silently disappears from the report.
        """
        if not os.path.isdir(self.submitted):
            return []
        return sorted(s for s in os.listdir(self.submitted)
                      if os.path.lexists(os.path.join(self.submitted, s, assignment)))

    def check_assignments(self, names: list[str]) -> None:
        """CourseError unless every name in `names` is an assignment folder of solutions/."""
        unknown = [n for n in names if n not in self.assignments]
        if unknown:
            known = ", ".join(self.assignments) or "none"
            raise CourseError(f"unknown assignment {', '.join(map(repr, unknown))}: the "
                              f"assignments are the folders of {self.source} ({known})")


def load(course_dir: str = ".", db_url: str | None = None) -> Settings:
    """Settings from `course_dir`/nbgrader_config.py; `db_url` overrides the gradebook URL.

    The file is checked first (check_config): a mistake in it stops here with the
    file and line, and unknown setting names are kept in Settings.warnings.
    The course's root is `course_dir` unless the file sets c.CourseDirectory.root.
    """
    from nbgrader.coursedir import CourseDirectory  # imports nbgrader's apps: when needed

    course_dir = os.path.abspath(course_dir)
    config, warnings = check_config(course_dir)
    given_root = config.get("CourseDirectory", {}).get("root")
    directory = CourseDirectory(config=config, **({} if given_root else {"root": course_dir}))

    def folder(name: str) -> str:
        return os.path.join(directory.root, name)

    submitted = folder(directory.submitted_directory)
    grader = SandboxGrader(config=config)
    similarity = SimilarityReport(config=config)
    return Settings(
        root=directory.root,
        course_id=directory.course_id or "default_course",
        source=folder(directory.source_directory),
        submitted=submitted,
        autograded=folder(directory.autograded_directory),
        feedback=folder(directory.feedback_directory),
        reports=(Reports(config=config).directory
                 or os.path.join(os.path.dirname(submitted), "reports")),
        db_url=with_postgres_driver(db_url or directory.db_url),
        limits=limits_from_config(config),
        package=grader.course_package,
        similarity_threshold=similarity.threshold,
        similarity_common_fraction=similarity.common_fraction,
        gradebook_retry_seconds=GradebookWriter(config=config).retry_seconds,
        also_blocked=tuple(grader.also_blocked),
        variant_salt=StudentVariants(config=config).salt,
        config=config,
        warnings=warnings,
    )
