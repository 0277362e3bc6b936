"""make publish-repo's guard (grader.publish.remotes, through bundle_repository.check_remote):
the course's own repository is refused however REMOTE spells it, a network address in any of
git's forms, a remote's name, a path or file:// URL of this checkout, its git folder, a
worktree or a local remote; a separate repository is not."""

import subprocess
from types import SimpleNamespace

import pytest

from grader.publish.bundle_repository import check_remote
from grader.settings import CourseError

GIT = ["git", "-c", "user.name=Course", "-c", "user.email=course@localhost"]


def git(*args):
    subprocess.run([*GIT, *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    """A folder with the course's checkout (remotes: origin on GitHub, mirror a bare repository
    beside it; url.https://github.com/.insteadOf gh:), a worktree of it, a symbolic link to it,
    and a separate repository, site.git."""
    top = tmp_path_factory.mktemp("machine")
    git("init", "-q", str(top / "course"))
    (top / "course" / "src").mkdir()
    git("-C", str(top / "course"), "commit", "-q", "--allow-empty", "-m", "The course")
    git("init", "-q", "--bare", str(top / "mirror.git"))
    git("init", "-q", "--bare", str(top / "site.git"))
    for name, url in (("origin", "git@github.com:uni-ml/gptcourse-instructor.git"),
                      ("mirror", str(top / "mirror.git"))):
        git("-C", str(top / "course"), "remote", "add", name, url)
    git("-C", str(top / "course"), "config", "url.https://github.com/.insteadOf", "gh:")
    git("-C", str(top / "course"), "worktree", "add", "-q", str(top / "course-wt"))
    (top / "link").symlink_to(top / "course")
    return top


OWN = [
    ("the checkout", "course"),
    ("its git folder", "course/.git/"),
    ("a path through a symbolic link", "link"),
    ("a path through ..", "course/src/.."),
    ("file:// of the checkout", "file://{top}/course"),
    ("file:// of its git folder", "file://{top}/course/.git"),
    ("a worktree of it", "course-wt"),
    ("a worktree's .git file", "{top}/course-wt/.git"),
    ("scp form without a user", "github.com:uni-ml/gptcourse-instructor"),
    ("scp form, another case", "git@github.com:Uni-ML/GPTcourse-Instructor.git"),
    ("ssh://", "ssh://git@github.com/uni-ml/gptcourse-instructor.git"),
    ("ssh:// with a port", "ssh://git@github.com:22/uni-ml/gptcourse-instructor"),
    ("https:// with .git", "https://github.com/uni-ml/gptcourse-instructor.git"),
    ("https:// with a last slash", "https://github.com/uni-ml/gptcourse-instructor/"),
    ("a remote's name", "origin"),
    ("rewritten by insteadOf", "gh:uni-ml/gptcourse-instructor"),
    ("a local remote by its path", "mirror.git"),
    ("a local remote by file://", "file://{top}/mirror.git"),
    ("a local remote without its .git", "{top}/mirror"),
]


@pytest.mark.parametrize("what, remote", OWN, ids=[o[0] for o in OWN])
def test_the_courses_own_repository_is_refused_however_it_is_spelled(machine, monkeypatch,
                                                                     what, remote):
    monkeypatch.chdir(machine)
    remote = remote.format(top=machine)
    with pytest.raises(CourseError) as error:
        check_remote(SimpleNamespace(root=str(machine / "course")), remote)
    said = str(error.value)
    assert said.startswith(f"REMOTE is {remote!r}")
    assert ("this course's own checkout, which holds solutions/: give a separate repository"
            in said or "this course's own repository (git remote " in said), said


def test_the_refusal_says_which_remote_it_is(machine, monkeypatch):
    monkeypatch.chdir(machine)
    with pytest.raises(CourseError) as error:
        check_remote(SimpleNamespace(root=str(machine / "course")),
                     "github.com:uni-ml/gptcourse-instructor")
    assert str(error.value) == (
        "REMOTE is 'github.com:uni-ml/gptcourse-instructor', this course's own repository "
        "(git remote 'origin': 'git@github.com:uni-ml/gptcourse-instructor.git'), which holds "
        "solutions/ and every hidden test: give a separate, public repository "
        "(docs/publishing.md)")


@pytest.mark.parametrize("remote", [
    "git@github.com:uni-ml/gptcourse-site.git", "github.com:uni-ml/gptcourse-instructor-site",
    "https://github.com/uni-ml/gptcourse-site", "site.git", "file://{top}/site.git",
    "gh:uni-ml/gptcourse-site", "{top}/new-site.git"])
def test_a_separate_repository_is_not_refused(machine, monkeypatch, remote):
    monkeypatch.chdir(machine)
    assert check_remote(SimpleNamespace(root=str(machine / "course")),
                        remote.format(top=machine)) is None
