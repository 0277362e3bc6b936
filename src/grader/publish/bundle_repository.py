"""`make publish-repo REMOTE=...`: the bundle committed to a separate, public git repository.

Colab opens a notebook from a public GitHub repository, Binder builds one: the launch
buttons need the notebooks in a repository every student can read, which the course's
own repository (solutions/) never is. This commits _publish/, exactly as it is, as the
whole tree of a branch of REMOTE (another repository, or a branch nobody else pushes
to): one new commit on top of what the branch holds, so the public history only ever
holds bundles; none when nothing changed. The bundle is searched for leaks again first
(leak_scan.py), and the commit is made in a temporary git folder, so the course's own
checkout and its remotes are not touched.
"""

import os
import subprocess
import tempfile

from ..settings import CourseError, Settings
from ..settings.course_wheel import PACKAGES_FOLDER, read_course_wheel
from .bundle import BUNDLE_FOLDER, bundle_fragments, leak_report
from .leak_scan import scan_folder
from .remotes import own_repository_push_problem
from .scan_record import clean_files
from .solutions_policy import assignments_with_public_solutions

AUTHOR = {"GIT_AUTHOR_NAME": "Course publisher", "GIT_AUTHOR_EMAIL": "publisher@localhost"}
GIT_SECONDS = 600


def run_git(git_dir: str, *args: str, env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess:
    """`git --git-dir=git_dir ARGS`; CourseError with git's words if it fails and `check`."""
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True,
                          text=True, env=env, timeout=GIT_SECONDS)
    if check and done.returncode != 0:
        said = (done.stderr or done.stdout).strip()
        raise CourseError(f"git {' '.join(args[:2])} failed: {said}")
    return done


def check_remote(settings: Settings, remote: str) -> None:
    """CourseError for a REMOTE that is the course's own repository, however it is spelled
    (remotes.py)."""
    problem = own_repository_push_problem(settings.root, remote)
    if problem:
        raise CourseError(problem)


def publish_repository(settings: Settings, remote: str, branch: str = "main",
                       bundle: str | None = None) -> str:
    """Commits the bundle to `branch` of the git repository `remote`; says what it did."""
    bundle = os.path.abspath(bundle or os.path.join(settings.root, BUNDLE_FOLDER))
    check_remote(settings, remote)
    if not os.path.isfile(os.path.join(bundle, "index.html")):
        raise CourseError(f"no bundle in {bundle}: run make publish first")
    with tempfile.TemporaryDirectory(prefix="publish-repo-") as work:
        git_dir = os.path.join(work, "repository.git")
        run_git(git_dir, "init", "--quiet", "--bare")
        run_git(git_dir, "config", "core.bare", "false")  # the bundle is its work tree
        packages = os.path.join(bundle, PACKAGES_FOLDER)
        wheels = sorted(n for n in os.listdir(packages) if n.endswith(".whl")) \
            if os.path.isdir(packages) else []
        if len(wheels) != 1:
            raise CourseError(f"{bundle} is not a bundle of make publish (not one wheel in "
                              f"{PACKAGES_FOLDER}/)")
        wheel = read_course_wheel(os.path.join(packages, wheels[0]))
        public = assignments_with_public_solutions(settings)
        fragments = bundle_fragments(settings, public)
        leaks = scan_folder(bundle, fragments, clean_files(settings, fragments))
        if leaks:
            raise CourseError(leak_report(leaks, bundle))
        fetched = run_git(git_dir, "fetch", "--quiet", "--depth=1", remote,
                          f"refs/heads/{branch}:refs/heads/{branch}", check=False)
        parent = None
        if fetched.returncode == 0:
            parent = run_git(git_dir, "rev-parse", f"refs/heads/{branch}").stdout.strip()
        elif run_git(git_dir, "ls-remote", remote, check=False).returncode != 0:
            raise CourseError(f"{remote!r} cannot be reached as a git repository: "
                              f"{fetched.stderr.strip()}")
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(work, "index"), **AUTHOR,
                   GIT_COMMITTER_NAME=AUTHOR["GIT_AUTHOR_NAME"],
                   GIT_COMMITTER_EMAIL=AUTHOR["GIT_AUTHOR_EMAIL"])
        run_git(git_dir, f"--work-tree={bundle}", "add", "--all", "--force", ".", env=env)
        tree = run_git(git_dir, "write-tree", env=env).stdout.strip()
        if parent and run_git(git_dir, "rev-parse", f"{parent}^{{tree}}").stdout.strip() == tree:
            return f"{remote} {branch}: the bundle is unchanged ({parent[:12]}); nothing pushed"
        message = (f"The course's published bundle: the site, the notebooks and "
                   f"{wheel.filename}")
        commit = run_git(git_dir, "commit-tree", tree, *(["-p", parent] if parent else []),
                         "-m", message, env=env).stdout.strip()
        run_git(git_dir, "push", "--quiet", remote, f"{commit}:refs/heads/{branch}")
    files = sum(len(names) for _, _, names in os.walk(bundle))
    return f"{remote} {branch}: {commit[:12]}, {files} files of {bundle}"

