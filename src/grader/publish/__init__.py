"""The publishing wing: the course made public without its answers (docs/publishing.md).

- ``fragments.py``: what must never be published, as text to search for: the solution and
  hidden-test blocks of solutions/, whole and by distinctive line, the canaries, and the
  texts of the rubrics of rubrics/.
- ``decoding.py``: the layers a file can hold text under, undone in memory within a bound:
  archives, zlib streams (a PDF's), a PDF's pages' text, base64, percent-escapes, UTF-16
  and UTF-32.
- ``leak_scan.py``: every file of a folder searched for them, in every form a page, a
  notebook, the search index or an archive (the wheel) holds text, under every layer.
- ``remotes.py``: whether a git remote is the course's own repository, however spelled.
- ``release_check.py``: the released notebooks are what solutions/ generates now, and their
  install line names the wheel built now.
- ``students_page.py``: students.html, how to install the package and where the homework is.
- ``solutions_policy.py``: an assignment's solutions, hidden tests out, once no student
  can still hand it in for points under the late policy (or despite those an override
  names); which assignments the record releases.
- ``bundle.py``: `write_bundle`, _publish/ written whole or not at all (make publish).
- ``bundle_repository.py``: the bundle committed to a separate public repository.
- ``commands.py``: publish, leak-scan, publish-repo and release-solutions, added to
  ``python -m grader`` by cli.py.
"""

from .bundle import BUNDLE_FOLDER, Bundle, bundle_fragments, write_bundle
from .bundle_repository import publish_repository
from .fragments import CANARIES, MIN_CHARS, Fragment, SecretKind, secret_fragments, squeeze
from .leak_scan import Leak, scan_bytes, scan_folder
from .solutions_policy import (RECORD_FILE, SolutionsPermit, check_solutions_may_go_out,
                               solution_notebooks)

__all__ = ["BUNDLE_FOLDER", "CANARIES", "MIN_CHARS", "RECORD_FILE", "Bundle", "Fragment", "Leak",
           "SecretKind", "SolutionsPermit",
           "bundle_fragments", "check_solutions_may_go_out", "publish_repository",
           "scan_bytes", "scan_folder", "secret_fragments", "solution_notebooks", "squeeze",
           "write_bundle"]
