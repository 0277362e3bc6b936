"""Checking nbgrader_config.py: loaded as nbgrader loads it, every mistake said with its line.

traitlets logs and skips a config file that fails to load, and ignores settings
it does not know, so nbgrader would carry on with its defaults (a gradebook.db
in the working folder, the exchange in /usr/local/share). Every target that
runs nbgrader checks the file first (`check_config`).

The classes whose settings are known are nbgrader's, the grader's own
(every one of this folder) and those nbgrader_config.py names, loaded by the
dotted names it gives them, as nbgrader will load them: the course's plugins
(grader.plugins) are known so, and this floor imports nothing above it.
"""

import difflib
import os
import re
import traceback
from collections.abc import Iterable
from types import TracebackType

from traitlets import List, TraitError, Type
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader
from traitlets.utils.importstring import import_item

from .errors import CourseError
from .limits import SandboxGrader  # noqa: F401 (its settings are among the known ones)
from .lti import LtiTool  # noqa: F401 (the same)
from .renamed import RENAMED, move_renamed, renamed_warning
from .sections import Reports, SimilarityReport, StudentVariants  # noqa: F401 (the same)
from .sections import DaskCluster, GradebookWriter  # noqa: F401 (the same)
from .service import CheckFeedback, CheckRateLimit  # noqa: F401 (the same)
from .service import GradingService, ServicePage  # noqa: F401 (the same)

CONFIG_NAME = "nbgrader_config.py"
DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")  # a class as nbgrader_config.py names it
# the plugins' old modules, removed, and where their classes are now
REMOVED_PATHS = {"grader.feedback": "grader.plugins.feedback",
                 "grader.late": "grader.plugins.late",
                 "grader.nbgrader_guard": "grader.plugins.nbgrader_guard"}
KnownSettings = dict[str, list[type[Configurable]]]  # class name -> the classes of that name


def check_config(course_dir: str = ".") -> tuple[Config, list[str]]:
    """(config, warnings) from `course_dir`/nbgrader_config.py, loaded as nbgrader loads it.

    Raises CourseError naming the file and line for a file that cannot be read,
    a syntax error, an exception while it runs (a malformed gradebook URL
    included) or a value of the wrong type; a setting name that neither
    nbgrader nor the grader knows (``c.Execute.timout``) is a warning. So is an
    old name of a setting that moved (renamed.py): its value is checked and used
    under the new name, the name every reader of the returned config sees. A class
    named by a removed old path (``grader.feedback.FeedbackPage``) is an error that
    names its path now.
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
    known, named = _known_settings(config)
    warnings: list[str] = []
    errors: list[str] = []
    for section in config:
        if not isinstance(config[section], dict):
            continue
        classes = known.get(section)
        for name, value in config[section].items():
            where = f"{path}, line {_line_of_setting(source, section, name) or '?'}"
            if (section, name) in RENAMED:
                warnings.append(f"{where}: warning: " + renamed_warning(config, section, name))
                new_section, new_name = RENAMED[section, name]
                section_checked, classes_checked = new_section, known[new_section]
            else:
                section_checked, classes_checked, new_name = section, classes, name
            if classes_checked is None:
                hint = _close(section, known)
                warnings.append(f"{where}: warning: c.{section}.{name} is ignored: neither "
                                f"nbgrader nor the grader has settings named {section}" + hint)
                continue
            traits = {n: t for cls in classes_checked
                      for n, t in cls.class_traits(config=True).items()}
            if new_name not in traits:
                hint = _close(name, traits)
                warnings.append(f"{where}: warning: c.{section}.{name} is ignored: "
                                f"{section_checked} has no setting {name!r}" + hint)
                continue
            problem = _invalid(classes_checked, new_name, value)
            if problem:
                errors.append(f"{where}: c.{section}.{name} = {value!r}: {problem}")
    for section, name, dotted in named:
        moved_to = REMOVED_PATHS.get(dotted.rpartition(".")[0])
        if moved_to:
            where = f"{path}, line {_line_of_setting(source, section, name) or '?'}"
            errors.append(f"{where}: c.{section}.{name} names {dotted}, an old path that is "
                          f"gone: name {moved_to}.{dotted.rpartition('.')[2]}")
    if errors:
        raise CourseError("\n".join(errors))
    move_renamed(config)
    return config, warnings


def _close(name: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {match[0]}?)" if match else ""


def _line_of_error(path: str, trace: TracebackType | None) -> int | None:
    """The line of `path` where the exception in traceback `trace` was raised, or None."""
    lines = [frame.lineno for frame in traceback.extract_tb(trace) if frame.filename == path]
    return lines[-1] if lines else None


def _line_of_setting(source: str, section: str, name: str) -> int | None:
    """The line of the last ``c.Section.name = ...`` in `source` (the one that counts)."""
    pattern = re.compile(rf"^\s*c\.{re.escape(section)}\.{re.escape(name)}\s*[+]?=")
    found = [n for n, line in enumerate(source.splitlines(), 1) if pattern.match(line)]
    return found[-1] if found else None


def _known_settings(config: Config) -> tuple[KnownSettings, list[tuple[str, str, str]]]:
    """({class name: [classes]} of every configurable class nbgrader and the grader use,
    [(section, name, dotted name)] of the classes `config`'s settings name).

    The classes nbgrader_config.py names (``c.GenerateFeedback.exporter_class =
    "grader.plugins.feedback.FeedbackPage"``, the course's late policy) are loaded by
    those names, as nbgrader loads them; their own settings are then known too.
    """
    import nbgrader.apps  # noqa: F401 (loads nbgrader's configurable classes, slowly)
    import nbgrader.plugins  # noqa: F401
    import nbgrader.preprocessors  # noqa: F401

    known, tried = _configurables(), set()
    while True:
        named = _named_classes(config, known)
        for _, _, dotted in named:
            if dotted not in tried:
                tried.add(dotted)
                _load_class(dotted)
        loaded = _configurables()
        if loaded.keys() == known.keys():
            return loaded, named
        known = loaded


def _configurables() -> KnownSettings:
    """{class name: [classes]} of every configurable class loaded in this process."""
    known: KnownSettings = {}
    todo = [Configurable]
    while todo:
        cls = todo.pop()
        known.setdefault(cls.__name__, []).append(cls)
        todo.extend(cls.__subclasses__())
    return known


def _named_classes(config: Config, known: KnownSettings) -> list[tuple[str, str, str]]:
    """(section, name, dotted name) of each class that a setting of `known` classes names:
    the value of a class setting (``plugin_class``), an entry of a list (``preprocessors``)."""
    named = []
    for section, values in config.items():
        if not isinstance(values, dict) or section not in known:
            continue
        for name, value in values.items():
            traits = [cls.class_traits(config=True).get(name) for cls in known[section]]
            if isinstance(value, str) and any(isinstance(t, Type) for t in traits):
                entries = [value]
            elif isinstance(value, (list, tuple)) and any(isinstance(t, List) for t in traits):
                entries = [entry for entry in value if isinstance(entry, str)]
            else:
                continue
            named.extend((section, name, entry) for entry in entries
                         if DOTTED_NAME.fullmatch(entry))
    return named


def _load_class(dotted: str) -> None:
    """Import the class named `dotted`; one that does not load is the value's check's to say."""
    try:
        import_item(dotted)
    except Exception:  # noqa: BLE001 (a mistyped class: reported as the setting's error)
        pass


def _invalid(classes: list[type[Configurable]], name: str, value: object) -> str | None:
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
