"""`make book` builds the site again only when one of its inputs is newer than the last
finished build: twice in a row, the second builds nothing (`make publish` relies on it)."""

import subprocess
from pathlib import Path

import pytest

from testsupport.course import ROOT

BUILD = "jupyter-book build"


def make(*args):
    done = subprocess.run(["make", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_make_book_with_nothing_changed_builds_nothing(site):
    marker = site / ".build-ok"
    built = marker.stat().st_mtime_ns
    make("-s", "book")
    assert marker.stat().st_mtime_ns == built, "make book built the site again"
    assert BUILD not in make("-n", "book")


@pytest.mark.parametrize("changed", [
    "book/output.md",                           # a page
    "src/gptcourse/assets/small_gpt.pt",        # what a page reads
    "book/_data/train_small_gpt.py",            # what made it
    "_toc.yml", "_config.yml", "nbgrader_config.py",
    "src/gptcourse/model.py",                   # the course's package
    "exercises/parameters/parameters.ipynb",    # a released notebook the homework page links
])
def test_a_newer_input_builds_the_site_again(site, changed):
    assert (Path(ROOT) / changed).is_file(), changed
    # -n: print what would run; -W: as if the file had just been edited
    assert BUILD in make("-n", "-W", changed, "book"), f"{changed} did not rebuild the site"
