"""The intake wing: an LMS's download of one assignment taken into submitted/.

- ``archive.py``: the zip checked whole before anything is written (`checked_entries`),
  its caps, and its entries read within their sizes.
- ``attempts.py``: each file of the zip an `Attempt` of a student at a notebook (matched
  through the roster as its LMS's class says), or a `SkippedFile` with its reason.
- ``transfer.py``: nbgrader's zip_collect moving the chosen files into submitted/, with
  the LMS's own names (`LmsFileNameCollector`).
- ``manifest.py``: lms/<assignment>.csv, what came from the LMS, per notebook.
- ``outcome.py``: `CollectOutcome`, what a collect did, its counts as fields.
- ``collect.py``: `collect_zip`, what `make collect-zip` runs, step by step.
"""

from .archive import MAX_ENTRIES, MAX_ENTRY_BYTES, MAX_TOTAL_BYTES, ArchiveError, checked_entries
from .attempts import Attempt, SkippedFile, SkipReason
from .collect import collect_zip
from .manifest import MANIFEST_FIELDS, manifest_path, read_manifest
from .outcome import CollectOutcome
from .transfer import LmsFileNameCollector

__all__ = ["ArchiveError", "Attempt", "CollectOutcome", "LmsFileNameCollector",
           "MANIFEST_FIELDS", "MAX_ENTRIES", "MAX_ENTRY_BYTES", "MAX_TOTAL_BYTES",
           "SkipReason", "SkippedFile", "checked_entries", "collect_zip", "manifest_path",
           "read_manifest"]
