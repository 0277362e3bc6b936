"""What the publishing tests share: the course's bundle, made once by `make publish`.

`make publish` builds the site first (`make book`: cached after the first build, which
tests/book shares; the two folders run on two workers, and the one that asks second waits
for the build, testsupport.course.site_build_lock) and writes _publish/ in the course, as
an instructor's run would; the
copies of the course (testsupport/publishing.py) publish that same built site (``--site``)
with settings of their own.
"""

import pytest

from testsupport.course import ROOT, make, site_build_lock
from testsupport.publishing import BUNDLE, PUBLISH_SECONDS


@pytest.fixture(scope="session")
def bundle():
    """The course's bundle, _publish/, as `make publish` writes it."""
    with site_build_lock(ROOT):
        done = make(ROOT, "-s", "publish", timeout=PUBLISH_SECONDS)
    if done.returncode != 0:
        pytest.fail(f"make publish failed (exit {done.returncode}):\n"
                    f"{(done.stdout + done.stderr)[-6000:]}")
    return BUNDLE
