"""`make publish`: the course's public bundle, _publish/, written whole or not at all.

A static host serves the folder as it is (GitHub Pages, a university web server,
``python -m http.server``). It holds, and nothing else of the repository:

- the site as `make book` built it (_build/html), less the build's own marker;
- ``book/<page>.ipynb``: each page's notebook, which the launch buttons open in the
  bundle's own public repository (``make publish-repo``);
- ``homework/<assignment>/<notebook>.ipynb``: the released student notebooks of
  exercises/, refused unless they are what solutions/ generates now and their install
  line names this wheel;
- ``packages/<wheel>`` and ``<wheel>.sha256``: the students' wheel of the course package;
- ``students.html``: how to install the package, where the homework is;
- ``solutions/<assignment>/``: the solutions released so far (solutions_policy.py);
- ``.nojekyll``: GitHub Pages then serves the site's folders whose names start with _.

It is written into a new folder beside _publish/, searched there for every solution and
hidden-test fragment (leak_scan.py), and only then put in place of the old one, which
is removed: nothing of an earlier bundle stays, and a refused bundle changes nothing.
"""

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

import yaml

from ..files import remove_left_over_folders, tagged_folder
from ..settings import CourseError, Settings
from ..settings.course_wheel import PACKAGES_FOLDER, CourseWheel, build_course_wheel
from ..settings.release_lines import install_requirement, public_address_problems
from .fragments import (Fragment, PublicText, SecretKind, cell_text, course_public_text,
                        rubric_fragments, secret_fragments, squeeze)
from .leak_scan import Leak, scan_folder
from .release_check import (install_line_problems, regenerated_differences,
                            released_notebooks_folder)
from .scan_record import clean_files
from .solutions_policy import assignments_with_public_solutions, solution_notebooks
from .students_page import students_page

BUNDLE_FOLDER = "_publish"
SITE_MARKER = ".build-ok"  # written by `make book` after a build without error
HOMEWORK_FOLDER = "homework"
SOLUTIONS_FOLDER = "solutions"
STUDENTS_PAGE = "students.html"
ADDED = (HOMEWORK_FOLDER, PACKAGES_FOLDER, SOLUTIONS_FOLDER, STUDENTS_PAGE, ".nojekyll")
MAX_FILES_SHOWN = 30


@dataclass
class Bundle:
    """A bundle written: its folder, wheel, install line and what it holds."""

    folder: str
    wheel: CourseWheel
    requirement: str | None
    homework: dict[str, list[str]] = field(default_factory=dict)
    solutions: dict[str, list[str]] = field(default_factory=dict)


def course_title(root: str) -> str:
    try:
        with open(os.path.join(root, "_config.yml"), encoding="utf-8") as handle:
            return str((yaml.safe_load(handle) or {}).get("title") or "The course")
    except (OSError, yaml.YAMLError, AttributeError):
        return "The course"


def leak_report(leaks: list[Leak], where: str) -> str:
    """The leaks found, by file: each file once for each cell or rubric text whose block or
    line it holds (a whole block first), and once if it cannot be searched; the first
    MAX_FILES_SHOWN files."""
    cells: dict[str, dict[tuple[str, ...], Leak]] = {}
    for leak in sorted(leaks, key=lambda leak: (leak.path, leak.fragment is not None,
                                                leak.fragment is not None
                                                and not leak.fragment.whole)):
        fragment = leak.fragment
        key = ("refused",) if fragment is None else (
            fragment.kind, fragment.assignment, fragment.notebook, fragment.grade_id,
            fragment.part)
        cells.setdefault(leak.path, {}).setdefault(key, leak)
    lines = [leak.line() for path in sorted(cells)[:MAX_FILES_SHOWN]
             for leak in cells[path].values()]
    more = len(cells) - MAX_FILES_SHOWN
    found = [leak for leak in leaks if leak.fragment is not None]
    refused = {leak.path for leak in leaks if leak.fragment is None}
    said = ([f"{len(found)} secret fragment(s) found in {len({leak.path for leak in found})} "
             f"file(s) of {where}"] if found else []) + (
        [f"{len(refused)} file(s) of {where} cannot be searched"] if refused else [])
    return ("; ".join(said) + "; it was not published:\n" + "\n".join(lines)
            + (f"\n... and {more} more file(s)" if more > 0 else ""))


def package_sources(settings: Settings) -> list[str]:
    """The text of the course package's modules (src/<package>/), which the wheel publishes."""
    texts = []
    for base, _, names in os.walk(os.path.join(settings.root, "src", settings.package)):
        for name in sorted(names):
            if name.endswith(".py"):
                with open(os.path.join(base, name), encoding="utf-8") as handle:
                    texts.append(handle.read())
    return texts


def bundle_fragments(settings: Settings, released: list[str]) -> list[Fragment]:
    """The fragments no byte of the bundle may hold: every hidden test, the solutions of the
    assignments whose solutions are not released, and every rubric's texts but what the
    released solutions show (a model answer in the words of an item's explanation)."""
    public = course_public_text(settings, released_notebooks_folder(settings),
                                package_sources(settings))
    hidden = secret_fragments(settings, public, kinds=(SecretKind.HIDDEN_TEST,))
    kept = [a for a in settings.assignments if a not in released]
    solutions = [cell_text(cell) for assignment in released
                 for text in solution_notebooks(settings, assignment).values()
                 for cell in json.loads(text).get("cells", [])]
    shown = PublicText("\0".join([public.released, *map(squeeze, solutions)]), public.pages)
    return (hidden + secret_fragments(settings, public, kept, kinds=(SecretKind.SOLUTION,))
            + rubric_fragments(settings, shown))


def check_site(site: str) -> None:
    if not os.path.isfile(os.path.join(site, "index.html")):
        raise CourseError(f"no built site in {site}: make book builds it (make publish runs it)")
    if not os.path.isfile(os.path.join(site, SITE_MARKER)):
        raise CourseError(f"{site} holds a site whose build did not finish ({SITE_MARKER} is "
                          f"missing): run make book again")
    taken = [name for name in ADDED if os.path.lexists(os.path.join(site, name))]
    if taken:
        raise CourseError(f"the site in {site} has its own {', '.join(taken)}, where the "
                          f"bundle puts its own: rename them in the book")


def fill(settings: Settings, site: str, folder: str, released: list[str]) -> Bundle:
    """Everything of the bundle written into the empty `folder` (module docstring)."""
    shutil.copytree(site, folder, dirs_exist_ok=True,
                    ignore=lambda base, names: [SITE_MARKER] if base == site else [])
    wheel = build_course_wheel(settings.root, os.path.join(folder, PACKAGES_FOLDER))
    problems = install_line_problems(settings, wheel)
    if problems:
        raise CourseError("the released notebooks do not install this wheel:\n"
                          + "\n".join(problems) + "\nrun make release (it writes the line and "
                          "generates exercises/ again), commit, then make publish")
    with open(wheel.path + ".sha256", "w", encoding="utf-8") as handle:
        handle.write(f"{wheel.sha256}  {wheel.filename}\n")
    bundle = Bundle(folder, wheel, install_requirement(settings, wheel))
    for base, _, files in os.walk(site):
        for name in sorted(files):
            page = os.path.relpath(os.path.join(base, name[:-len(".html")]), site)
            notebook = os.path.join(settings.root, page + ".ipynb")
            if name.endswith(".html") and os.path.isfile(notebook):
                shutil.copy(notebook, os.path.join(folder, page + ".ipynb"))
    release = released_notebooks_folder(settings)
    for assignment in settings.assignments:
        shutil.copytree(os.path.join(release, assignment),
                        os.path.join(folder, HOMEWORK_FOLDER, assignment),
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        bundle.homework[assignment] = [
            f"{HOMEWORK_FOLDER}/{assignment}/{name}"
            for name in sorted(os.listdir(os.path.join(release, assignment)))
            if name.endswith(".ipynb")]
    for assignment in released:
        target = os.path.join(folder, SOLUTIONS_FOLDER, assignment)
        os.makedirs(target)
        for name, text in sorted(solution_notebooks(settings, assignment).items()):
            with open(os.path.join(target, name), "w", encoding="utf-8") as handle:
                handle.write(text)
            bundle.solutions.setdefault(assignment, []).append(
                f"{SOLUTIONS_FOLDER}/{assignment}/{name}")
    with open(os.path.join(folder, STUDENTS_PAGE), "w", encoding="utf-8") as handle:
        handle.write(students_page(course_title(settings.root), wheel, bundle.requirement,
                                   bundle.homework, bundle.solutions))
    open(os.path.join(folder, ".nojekyll"), "w").close()
    return bundle


def put_in_place(new: str, target: str) -> None:
    """The folder `new` moved to `target`; what was there is moved aside first, into a folder
    the next run removes if this one dies (files.py), and removed after the move."""
    retired = None
    if os.path.lexists(target):
        retired = tagged_folder("retired", os.path.dirname(target))
        os.rename(target, os.path.join(retired, "bundle"))
    try:
        os.rename(new, target)
    except BaseException:
        if retired is not None:  # the old bundle back where it was
            os.rename(os.path.join(retired, "bundle"), target)
            os.rmdir(retired)
        raise
    if retired is not None:
        shutil.rmtree(retired)


def write_bundle(settings: Settings, site: str, target: str | None = None,
                 also_released: tuple[str, ...] = (),
                 before_swap: Callable[[], object] | None = None) -> Bundle:
    """The bundle of the course's site `site` written to `target` (default _publish/ in the
    course), whole or not at all. `also_released`: assignments whose solutions go in besides
    those of solutions-released.csv; `before_swap()` runs once the bundle is complete and
    clean, before it replaces the old one."""
    target = os.path.abspath(target or os.path.join(settings.root, BUNDLE_FOLDER))
    problems = public_address_problems(settings)
    if problems:
        raise CourseError("\n".join(problems))
    check_site(site)
    released = sorted(set(assignments_with_public_solutions(settings)) | set(also_released))
    stale = regenerated_differences(settings)
    if stale:
        raise CourseError("the released notebooks are out of date:\n" + "\n".join(stale)
                          + "\nrun make release, commit exercises/, then make publish")
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    remove_left_over_folders(parent)
    folder = tagged_folder("publish", parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(folder, 0o777 & ~umask)  # a web server's account reads it, not a temporary's 0700
    try:
        bundle = fill(settings, site, folder, released)
        fragments = bundle_fragments(settings, released)
        leaks = scan_folder(folder, fragments, clean_files(settings, fragments))
        if leaks:
            raise CourseError(leak_report(leaks, "the bundle"))
        if before_swap is not None:
            before_swap()
        put_in_place(folder, target)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    bundle.folder = target
    return bundle
