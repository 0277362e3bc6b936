"""`make publish-repo REMOTE=...`: the bundle, exactly, as the tree of a branch of a separate
repository (here a bare repository on this machine), a commit only when it changed; never
the course's own repository, never a bundle that would leak."""

import os
import shutil
import subprocess

import pytest

from grader.publish import publish_repository
from grader.settings import CourseError, load
from testsupport.course import ROOT, make
from testsupport.publishing import bundle_files


def git(repository, *args):
    return subprocess.run(["git", f"--git-dir={repository}", *args], capture_output=True,
                          text=True, check=True).stdout


def tree(repository, branch):
    """{path: bytes} of the files of `branch`."""
    files = {}
    for line in git(repository, "ls-tree", "-r", "-z", branch).split("\0"):
        if line:
            meta, path = line.split("\t", 1)
            files[path] = subprocess.run(
                ["git", f"--git-dir={repository}", "cat-file", "blob", meta.split()[2]],
                capture_output=True, check=True).stdout
    return files


def test_the_bundle_becomes_the_branch_once_and_again_only_when_it_changed(bundle, tmp_path):
    remote = tmp_path / "site.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    done = make(ROOT, "-s", "publish-repo", f"REMOTE={remote}", "PUBLISH_BRANCH=pages")
    assert done.returncode == 0, done.stdout + done.stderr
    assert tree(str(remote), "pages") == bundle_files(bundle)
    assert len(git(str(remote), "rev-list", "pages").split()) == 1
    again = make(ROOT, "-s", "publish-repo", f"REMOTE={remote}", "PUBLISH_BRANCH=pages")
    assert "the bundle is unchanged" in again.stdout, again.stdout + again.stderr
    assert len(git(str(remote), "rev-list", "pages").split()) == 1
    changed = tmp_path / "bundle"
    shutil.copytree(bundle, changed)
    os.remove(changed / "students.html")
    (changed / "notes.html").write_text("<p>week 2</p>")
    said = publish_repository(load(ROOT), str(remote), "pages", str(changed))
    assert said.startswith(f"{remote} pages: ")
    assert tree(str(remote), "pages") == bundle_files(str(changed))  # the old page gone
    assert len(git(str(remote), "rev-list", "pages").split()) == 2
    assert not any(p.startswith(("solutions/", "src/")) for p in tree(str(remote), "pages"))


def test_the_courses_own_checkout_or_remote_and_a_leaking_bundle_are_refused(bundle, tmp_path):
    settings = load(ROOT)
    for own in (ROOT, os.path.join(ROOT, "src", "..")):
        with pytest.raises(CourseError) as error:
            publish_repository(settings, own, "main", bundle)
        assert "this course's own checkout, which holds solutions/" in str(error.value)
    leaking = tmp_path / "bundle"
    shutil.copytree(bundle, leaking)
    with open(os.path.join(ROOT, "solutions", "parameters", "parameters.ipynb"), "rb") as nb:
        (leaking / "parameters.ipynb").write_bytes(nb.read())  # the instructor's notebook
    remote = tmp_path / "site.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    with pytest.raises(CourseError) as error:
        publish_repository(settings, str(remote), "main", str(leaking))
    assert "found in 1 file(s) of" in str(error.value)
    assert "\nparameters.ipynb: a" in str(error.value)
    assert git(str(remote), "for-each-ref") == ""  # nothing pushed
