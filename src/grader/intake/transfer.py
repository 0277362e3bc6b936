"""The chosen notebooks moved into submitted/ by nbgrader's own zip_collect.

nbgrader's `ZipCollectApp` takes the files of an "extracted" folder, asks a
file-name collector plugin who and which notebook each file is, copies it to
``submitted/<student>/<assignment>/`` and writes timestamp.txt. Here the
collector is `LmsFileNameCollector`, which reads the names with the LMS's own
pattern (`Platform.read_name`) and answers from what collecting already decided.
"""

import datetime
import logging
import os
import shutil

from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Dict, Unicode, observe

from ..files import remove_left_over_folders, tagged_folder
from ..lms import DEFAULT_PLATFORM, known_platforms, platform
from ..settings import CourseError, Settings
from .attempts import Attempt
from .manifest import lms_folder


class LmsFileNameCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector with the LMS's own names, matched on the path inside
    the zip (nbgrader's matches the whole path). `student_ids` maps each entry name to the
    course's student id, `notebooks` to the released notebook it is and `timestamps` to the
    submission time; an entry missing from them is skipped."""

    lms = Unicode(DEFAULT_PLATFORM,
                  help=f"which LMS wrote the names: {known_platforms()}").tag(config=True)
    named_regexp = Unicode(platform(DEFAULT_PLATFORM).pattern.pattern,
                           help="the LMS's pattern (from `lms`)")
    extracted = Unicode("", help="the folder the zip's entries were written to")
    student_ids = Dict(help="{entry name: course student id}")
    notebooks = Dict(help="{entry name: released notebook name}")
    timestamps = Dict(help="{entry name: submission time, as parse_utc reads it}")

    @observe("lms")
    def use_the_lms_pattern(self, change: dict[str, str]) -> None:
        self.named_regexp = platform(change["new"]).pattern.pattern

    def collect(self, submitted_file: str) -> dict[str, str | None] | None:
        entry = os.path.relpath(submitted_file, self.extracted).replace(os.sep, "/")
        if (not entry.endswith(".ipynb") or platform(self.lms).read_name(entry) is None
                or entry not in self.student_ids):
            return None
        return {"student_id": self.student_ids[entry], "file_id": self.notebooks[entry],
                "timestamp": self.timestamps[entry], "first_name": None, "last_name": None,
                "email": None}


def transfer_with_nbgrader(settings: Settings, assignment: str, lms: str, chosen: list[Attempt],
                           contents: dict[str, bytes], times: dict[str, datetime.datetime]
                           ) -> None:
    """The `chosen` attempts into submitted/ through nbgrader's ZipCollectApp: written to an
    'extracted' folder of nbgrader's layout under their names in the zip, then collected by
    nbgrader with LmsFileNameCollector, which writes timestamp.txt."""
    from nbgrader.apps import ZipCollectApp  # imports nbgrader's apps: when collecting
    from nbgrader.coursedir import CourseDirectory  # (the same)

    os.makedirs(lms_folder(settings), exist_ok=True)
    remove_left_over_folders(lms_folder(settings))
    staging = tagged_folder("zipcollect", lms_folder(settings))
    try:
        extracted = os.path.join(staging, assignment, "extracted")
        for attempt in chosen:
            path = os.path.join(extracted, *attempt.entry.name.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(contents[attempt.entry.name])
        app = ZipCollectApp(config=settings.config, log_level=logging.ERROR)
        app.coursedir = CourseDirectory(config=settings.config, root=settings.root)
        app.coursedir.assignment_id = assignment
        app.downloaded_directory = os.path.relpath(staging, settings.root)
        app.collector_plugin = LmsFileNameCollector
        app.init_plugins()
        collector = app.collector_plugin_inst
        collector.lms, collector.extracted = lms, extracted
        collector.student_ids = {a.entry.name: a.student_id for a in chosen}
        collector.notebooks = {a.entry.name: a.notebook for a in chosen}
        collector.timestamps = {a.entry.name: f"{times[a.student_id]:%Y-%m-%d %H:%M:%S.%f} UTC"
                                for a in chosen}
        try:
            app.process_extracted_files()
        except SystemExit:  # nbgrader's app.fail: logged, then exits
            raise CourseError(f"nbgrader's zip_collect stopped collecting {assignment}; "
                              f"what it replaced is kept in "
                              f"{os.path.join(lms_folder(settings), 'replaced', assignment)}"
                              ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
