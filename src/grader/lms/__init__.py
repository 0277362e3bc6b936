"""The LMS wing: submissions handed in through Canvas or Moodle, collected from their zip.

- ``names.py``: the file names of each LMS's download (`read_lms_name`), renamed copies
  (`released_notebook`), and nbgrader's file-name collector with them
  (`LmsFileNameCollector`).
- ``archive.py``: the zip checked whole before anything is written (`checked_entries`),
  its caps, and its entries read within their sizes.
- ``collect.py``: `collect_zip`, what `make collect-zip` runs: students matched through
  the roster, the latest attempt kept, nbgrader's zip_collect moving them into
  submitted/, and the manifest lms/<assignment>.csv.
"""

from .archive import MAX_ENTRIES, MAX_ENTRY_BYTES, MAX_TOTAL_BYTES, ArchiveError, checked_entries
from .collect import MANIFEST_FIELDS, collect_zip, manifest_path, read_manifest
from .names import LmsFileName, LmsFileNameCollector, read_lms_name, released_notebook

__all__ = ["ArchiveError", "LmsFileName", "LmsFileNameCollector", "MANIFEST_FIELDS",
           "MAX_ENTRIES", "MAX_ENTRY_BYTES", "MAX_TOTAL_BYTES", "checked_entries",
           "collect_zip", "manifest_path", "read_lms_name", "read_manifest", "released_notebook"]
