"""Checking nbgrader_config.py: loaded as nbgrader loads it, every mistake said with its line.

traitlets logs and skips a config file that fails to load, and ignores settings
it does not know, so nbgrader would carry on with its defaults (a gradebook.db
in the working folder, the exchange in /usr/local/share). Every target that
runs nbgrader checks the file first (`check_config`).
"""

import difflib
import os
import re
import traceback

from traitlets import TraitError
from traitlets.config import Configurable
from traitlets.config.loader import PyFileConfigLoader

from .errors import CourseError
from .limits import SandboxGrader  # noqa: F401 (its settings are among the known ones)
CONFIG_NAME = "nbgrader_config.py"


def check_config(course_dir: str = ".") -> tuple:
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


def _close(name: str, choices: object) -> str:
    match = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {match[0]}?)" if match else ""


def _line_of_error(path: str, trace: object) -> int | None:
    """The line of `path` where the exception in traceback `trace` was raised, or None."""
    lines = [frame.lineno for frame in traceback.extract_tb(trace) if frame.filename == path]
    return lines[-1] if lines else None


def _line_of_setting(source: str, section: str, name: str) -> int | None:
    """The line of the last ``c.Section.name = ...`` in `source` (the one that counts)."""
    pattern = re.compile(rf"^\s*c\.{re.escape(section)}\.{re.escape(name)}\s*[+]?=")
    found = [n for n, line in enumerate(source.splitlines(), 1) if pattern.match(line)]
    return found[-1] if found else None


def _known_settings() -> dict:
    """{class name: [classes]} of every configurable class nbgrader and the grader use."""
    import nbgrader.apps  # noqa: F401 (loads nbgrader's configurable classes, slowly)
    import nbgrader.plugins  # noqa: F401
    import nbgrader.preprocessors  # noqa: F401

    from .. import feedback  # noqa: F401 (the config names its preprocessor; imported with
    # nbgrader's modules, whose classes it subclasses, only when a config is checked)
    from .. import late  # noqa: F401 (the config may name its late policies; the same reason)

    known, todo = {}, [Configurable]
    while todo:
        cls = todo.pop()
        known.setdefault(cls.__name__, []).append(cls)
        todo.extend(cls.__subclasses__())
    return known


def _invalid(classes: list, name: str, value: object) -> str | None:
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
