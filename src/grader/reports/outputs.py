"""Everything `make grades` writes, in one call: exports, summary, report pages and item
analyses."""

import os

from ..lms import gradebooks
from ..recording import not_graded_yet, rebuild_assignment_reports
from ..settings import Settings
from .exports import write_exports
from .grades import read_grades
from .items import write_item_analysis
from .page import write_report_pages
from .summary import write_summary


def write_grades(settings: Settings, names: list[str]) -> list[str]:
    """The assignments' reports rebuilt, then grades.csv, the LMS exports, summary.txt and
    the report pages written; returns lines saying where each file is, after a warning for
    each student whose submission is newer than their grade (not graded yet: the files
    hold the grade the gradebook has, which the warning names)."""
    rebuild_assignment_reports(settings, names)
    people, grades = read_grades(settings, names)
    paths = write_exports(settings, people, grades)
    summary = os.path.join(settings.reports, "summary.txt")
    write_summary(settings, names, people, grades)
    pages = write_report_pages(settings, people, grades)
    items = [path for assignment in grades for path in write_item_analysis(settings, assignment)]

    def relative(path):
        return os.path.relpath(path, settings.root)

    waiting = [f"warning: {late.line}" for name in names
               for late in not_graded_yet(settings, name).values()]
    return (waiting + [f"grades (nbgrader's columns): {relative(paths['grades'])}"]
            + [f"{lms.title + ' gradebook import:':<29}{relative(paths[lms.name])}"
               for lms, _ in gradebooks()]
            + [f"roster with scores:          {relative(paths['roster'])}",
               f"summary:                     {relative(summary)}"]
            + [f"report page:                 {relative(p)}" for p in pages]
            + [f"item analysis:               {relative(p)}" for p in items])
