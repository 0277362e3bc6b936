"""The course's settings, read from nbgrader_config.py as nbgrader itself reads them."""

import difflib
import os
import re
import traceback
from dataclasses import dataclass, field

from traitlets import Integer, List, TraitError, Unicode
from traitlets.config import Configurable
from traitlets.config.loader import PyFileConfigLoader


class CourseError(Exception):
    """The course set-up is wrong: the instructor's problem, never a student's."""


class SandboxGrader(Configurable):
    """The grader's own settings in nbgrader_config.py (``c.SandboxGrader.name = value``).

    The one home of their defaults: the sandbox's Limits and the command line's
    help read them from here (`default`). The limit per cell is nbgrader's own
    ``c.Execute.timeout``.
    """

    memory_mib = Integer(3072, min=64,
                         help="memory of each sandbox, its processes together, in MiB"
                         ).tag(config=True)
    tmpfs_mib = Integer(128, min=1,
                        help="size of each writable in-memory folder of a sandbox (/tmp, "
                        "/home, /dev/shm and the working folder), in MiB").tag(config=True)
    file_mib = Integer(64, min=1, help="largest file a sandbox may write, in MiB"
                       ).tag(config=True)
    max_processes = Integer(128, min=8, help="processes and threads of one sandbox, in all"
                            ).tag(config=True)
    reports_directory = Unicode("", help="where grade reports go (default: reports/ beside "
                                "the submitted/ folder)").tag(config=True)
    course_package = Unicode("gptcourse", help="the course package students import"
                             ).tag(config=True)
    also_blocked = List(Unicode(), help="functions of the course package that compute answers, "
                        "stubs in the sandbox besides the answers").tag(config=True)

    @classmethod
    def default(cls, name):
        """The default of setting `name`."""
        return cls.class_traits()[name].default()


@dataclass
class Settings:
    root: str
    course_id: str
    source: str
    submitted: str
    autograded: str
    reports: str
    db_url: str
    limits: object  # sandbox.Limits: c.Execute.timeout and c.SandboxGrader's limits
    package: str  # the course package students import
    also_blocked: tuple = ()  # its functions that compute answers, besides the answers
    config: object = field(default=None, repr=False)
    warnings: list = field(default_factory=list, repr=False)

    def late_penalties(self):
        """nbgrader's AssignLatePenalties with this course's settings (its plugin_class and
        c.LateSubmissionPlugin.penalty_method), as stock `nbgrader autograde` builds it."""
        from nbgrader.preprocessors import AssignLatePenalties

        late = AssignLatePenalties(config=self.config)
        late.init_plugin()
        return late

    @property
    def assignments(self):
        if not os.path.isdir(self.source):
            return []
        return sorted(d for d in os.listdir(self.source)
                      if os.path.isdir(os.path.join(self.source, d)) and not d.startswith("."))

    def instructor_notebooks(self, assignment):
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
                    import nbformat

                    nbformat.read(handle, as_version=4)
            except Exception as error:  # noqa: BLE001 (any failure is the instructor's to fix)
                raise CourseError(f"instructor notebook {path} cannot be read: {error}") from None
        return names

    def students(self, assignment):
        """Students with a submitted/<student>/<assignment> entry, sorted.

        Symbolic links are listed too (the grader refuses and reports them),
        so that no submission silently disappears from the report.
        """
        if not os.path.isdir(self.submitted):
            return []
        return sorted(s for s in os.listdir(self.submitted)
                      if os.path.lexists(os.path.join(self.submitted, s, assignment)))


def load(course_dir=".", db_url=None):
    """Settings from `course_dir`/nbgrader_config.py; `db_url` overrides the gradebook URL.

    The file is checked first (check_config): a mistake in it stops here with the
    file and line, and unknown setting names are kept in Settings.warnings.
    """
    course_dir = os.path.abspath(course_dir)
    config, warnings = check_config(course_dir)
    cd = config.get("CourseDirectory", {})
    root = cd.get("root", course_dir)

    def folder(key, default):
        return os.path.join(root, cd.get(key, default))

    from nbgrader.preprocessors import Execute

    from .sandbox import Limits

    submitted = folder("submitted_directory", "submitted")
    grader = SandboxGrader(config=config)
    limits = Limits(timeout=float(Execute(config=config).timeout), memory_mib=grader.memory_mib,
                    tmpfs_mib=grader.tmpfs_mib, file_mib=grader.file_mib,
                    max_processes=grader.max_processes)
    url = db_url or cd.get("db_url") or "sqlite:///" + os.path.join(root, "gradebook.db")
    return Settings(
        root=root,
        course_id=cd.get("course_id", "default_course"),
        source=folder("source_directory", "source"),
        submitted=submitted,
        autograded=folder("autograded_directory", "autograded"),
        reports=grader.reports_directory or os.path.join(os.path.dirname(submitted), "reports"),
        db_url=url,
        limits=limits,
        package=grader.course_package,
        also_blocked=tuple(grader.also_blocked),
        config=config,
        warnings=warnings,
    )


# --- checking nbgrader_config.py -------------------------------------------------
# traitlets logs and skips a config file that fails to load, and ignores settings it
# does not know, so nbgrader would carry on with its defaults (a gradebook.db in the
# working folder, the exchange in /usr/local/share). Every target that runs nbgrader
# checks the file first.

CONFIG_NAME = "nbgrader_config.py"


def check_config(course_dir="."):
    """(config, warnings) from `course_dir`/nbgrader_config.py, loaded as nbgrader loads it.

    Raises CourseError naming the file and line for a file that cannot be read,
    a syntax error, an exception while it runs (a malformed gradebook URL
    included) or a value of the wrong type; a setting name that neither
    nbgrader nor the grader knows (``c.Execute.timout``) is a warning.
    """
    course_dir = os.path.abspath(course_dir)
    path = os.path.join(course_dir, CONFIG_NAME)
    if not os.path.isfile(path):
        raise CourseError(f"no nbgrader_config.py in {course_dir} (the course's settings)")
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise CourseError(f"{path} cannot be read: {error}") from None
    try:
        compile(source, path, "exec")
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        text = (getattr(error, "text", None) or "").strip()
        where = f"{path}, line {line}" if line else path
        raise CourseError(f"{where}: {getattr(error, 'msg', error)}"
                          + (f": {text}" if text else "")) from None
    try:
        config = PyFileConfigLoader(CONFIG_NAME, path=course_dir).load_config()
    # SystemExit too: nbgrader_config.py raises it for a malformed gradebook URL
    except (Exception, SystemExit) as error:  # noqa: BLE001 (the instructor's to fix)
        line = _line_of_error(path, error.__traceback__)
        where = f"{path}, line {line}" if line else path
        name = "" if isinstance(error, SystemExit) else f"{type(error).__name__}: "
        raise CourseError(f"{where}: {name}{error}") from None
    known = _known_settings()
    warnings, errors = [], []
    for section in config:
        if not isinstance(config[section], dict):
            continue
        classes = known.get(section)
        for name, value in config[section].items():
            where = f"{path}, line {_line_of_setting(source, section, name) or '?'}"
            if classes is None:
                hint = _close(section, known)
                warnings.append(f"{where}: warning: c.{section}.{name} is ignored: neither "
                                f"nbgrader nor the grader has settings named {section}" + hint)
                continue
            traits = {n: t for cls in classes for n, t in cls.class_traits(config=True).items()}
            if name not in traits:
                hint = _close(name, traits)
                warnings.append(f"{where}: warning: c.{section}.{name} is ignored: {section} "
                                f"has no setting {name!r}" + hint)
                continue
            problem = _invalid(classes, name, value)
            if problem:
                errors.append(f"{where}: c.{section}.{name} = {value!r}: {problem}")
    if errors:
        raise CourseError("\n".join(errors))
    return config, warnings


def _close(name, choices):
    match = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {match[0]}?)" if match else ""


def _line_of_error(path, trace):
    """The line of `path` where the exception in traceback `trace` was raised, or None."""
    lines = [frame.lineno for frame in traceback.extract_tb(trace) if frame.filename == path]
    return lines[-1] if lines else None


def _line_of_setting(source, section, name):
    """The line of the last ``c.Section.name = ...`` in `source` (the one that counts)."""
    pattern = re.compile(rf"^\s*c\.{re.escape(section)}\.{re.escape(name)}\s*[+]?=")
    found = [n for n, line in enumerate(source.splitlines(), 1) if pattern.match(line)]
    return found[-1] if found else None


def _known_settings():
    """{class name: [classes]} of every configurable class nbgrader and the grader use."""
    import nbgrader.apps  # noqa: F401 (loads nbgrader's configurable classes)
    import nbgrader.plugins  # noqa: F401
    import nbgrader.preprocessors  # noqa: F401

    from . import feedback  # noqa: F401 (the feedback preprocessor named in the config)

    known, todo = {}, [Configurable]
    while todo:
        cls = todo.pop()
        known.setdefault(cls.__name__, []).append(cls)
        todo.extend(cls.__subclasses__())
    return known


def _invalid(classes, name, value):
    """Why `value` is not valid for the setting `name` of `classes`, or None."""
    for cls in classes:
        trait = cls.class_traits(config=True).get(name)
        if trait is None:
            continue
        try:
            trait._validate(cls.__new__(cls), value)
        except TraitError as error:
            return str(error).replace(f" of a {cls.__name__} instance", "")
        except Exception:  # noqa: BLE001 (a check that needs a configured instance: skip)
            continue
    return None


def check_assignments(settings, names):
    """CourseError unless every name in `names` is an assignment folder of solutions/."""
    unknown = [n for n in names if n not in settings.assignments]
    if unknown:
        known = ", ".join(settings.assignments) or "none"
        raise CourseError(f"unknown assignment {', '.join(map(repr, unknown))}: the "
                          f"assignments are the folders of {settings.source} ({known})")


def check_gradebook(settings, assignment, notebooks):
    """The assignment must be in the gradebook with the same notebooks (nbgrader generate_assignment)."""
    from nbgrader.api import Gradebook, MissingEntry

    try:
        with Gradebook(settings.db_url, settings.course_id) as gb:
            try:
                recorded = gb.find_assignment(assignment)
            except MissingEntry:
                raise CourseError(f"assignment {assignment!r} is not in the gradebook "
                                  f"({settings.db_url}): release it first "
                                  "(make release, which runs nbgrader generate_assignment)") from None
            names = {nb.name for nb in recorded.notebooks}
    except CourseError:
        raise
    except Exception as error:  # noqa: BLE001 (database unreachable, bad URL, ...)
        raise CourseError(f"the gradebook {settings.db_url} cannot be opened: {error}") from None
    if names != set(notebooks):
        raise CourseError(f"the gradebook's notebooks of {assignment!r} ({sorted(names)}) differ "
                          f"from solutions/ ({sorted(notebooks)}): run make release")
    changed = unreleased_changes(settings, assignment, notebooks)
    if changed:
        raise CourseError(f"solutions/{assignment} differs from what was released "
                          f"({'; '.join(changed[:5])}): run make release, so that students "
                          f"and the grader see the same checks")


def unreleased_changes(settings, assignment, notebooks):
    """What differs between solutions/<assignment> and the gradebook's record of its release.

    `make release` (nbgrader generate_assignment) records every check's points and
    the source of every check and read-only cell; the grader takes its checks from
    solutions/, so an edit there that was not released would grade students against
    checks they never saw (and scores above the released maximum).
    """
    import nbformat
    from nbgrader.api import Gradebook

    changes = []
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for name, path in sorted(notebooks.items()):
            recorded = gb.find_notebook(name, assignment)
            points = {c.name: c.max_score for c in recorded.grade_cells}
            sources = {c.name: c.source for c in recorded.source_cells}
            now_points, now_sources = {}, {}
            for cell in nbformat.read(path, as_version=4).cells:
                meta = cell.metadata.get("nbgrader", {})
                grade_id = meta.get("grade_id")
                if not grade_id:
                    continue
                if meta.get("grade"):
                    now_points[grade_id] = float(meta.get("points", 0))
                if (meta.get("grade") or meta.get("locked")) and not meta.get("solution"):
                    now_sources[grade_id] = cell.source
            for grade_id in sorted(set(points) | set(now_points)):
                if grade_id not in now_points:
                    changes.append(f"{name}: check {grade_id} removed")
                elif grade_id not in points:
                    changes.append(f"{name}: check {grade_id} added")
                elif points[grade_id] != now_points[grade_id]:
                    changes.append(f"{name}: {grade_id} worth {now_points[grade_id]:g} points, "
                                   f"released with {points[grade_id]:g}")
            for grade_id, source in now_sources.items():
                if grade_id in sources and sources[grade_id] != source:
                    changes.append(f"{name}: cell {grade_id} edited")
    return changes


def blocked_functions(settings, notebooks):
    """The course package's functions that student code may not use while graded.

    These are the package's functions that an assignment asks students to
    write (top-level names bound by the instructor's answer cells that the
    package also defines), plus `c.SandboxGrader.also_blocked`, the package
    functions that would compute an answer. Found without importing the package.
    """
    import ast
    import importlib.util

    import nbformat

    from .checker import answer_names
    from .notebooks import nbgrader_meta

    spec = importlib.util.find_spec(settings.package)
    if spec is None or not spec.submodule_search_locations:
        raise CourseError(f"the course package {settings.package!r} is not installed")
    defined = set()
    for folder in spec.submodule_search_locations:
        for directory, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(directory, name), encoding="utf-8") as handle:
                        tree = ast.parse(handle.read())
                    defined |= {node.name for node in tree.body
                                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    answers = set()
    for path in notebooks.values():
        nb = nbformat.read(path, as_version=4)
        answers |= answer_names([c.source for c in nb.cells
                                 if c.cell_type == "code" and nbgrader_meta(c).get("solution")])
    unknown = sorted(set(settings.also_blocked) - defined)
    if unknown:
        raise CourseError(f"c.SandboxGrader.also_blocked names {', '.join(unknown)}, which "
                          f"{settings.package} does not define")
    return tuple(sorted((answers & defined) | set(settings.also_blocked)))
