"""What killed runs left in the shared folders (grader.files): the folders of dead graders
are removed and those of running ones kept; a new write removes its killed writer's temporary."""

import os
import subprocess
import sys
import time

from grader import files
from grader.files import owner_tag, remove_left_over_folders


def _leftover(folder, target, tag):
    """A temporary as the writer names it, for `target`, left by the process `tag`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".{target}.{tag}.abc123.tmp"
    path.write_text("{")
    return path


def test_folders_of_dead_graders_are_removed_and_those_of_running_ones_kept(tmp_path):
    host = owner_tag().split("-")[0]
    dead = tmp_path / f"grader-run-{host}-999999999-7-x"
    reused = tmp_path / f"grader-work-{host}-{os.getpid()}-1-x"  # same pid, other start time
    alive = tmp_path / f"grader-work-{owner_tag()}-x"
    unrelated = tmp_path / "grader-unrelated"
    elsewhere_new = tmp_path / f"grader-run-{host}x-12-7-x"  # another machine's, maybe at work
    elsewhere_old = tmp_path / f"grader-run-{host}x-13-7-x"  # another machine's, long untouched
    for folder in (dead, reused, alive, unrelated, elsewhere_new, elsewhere_old):
        (folder / "inside").mkdir(parents=True)
    long_ago = time.time() - files.STALE_SECONDS - 60
    os.utime(elsewhere_old, (long_ago, long_ago))
    os.utime(unrelated, (long_ago, long_ago))
    removed = remove_left_over_folders(str(tmp_path))
    assert sorted(removed) == sorted([str(dead), str(reused), str(elsewhere_old)])
    assert alive.exists() and unrelated.exists() and elsewhere_new.exists()


def test_a_new_write_removes_the_leftover_of_its_killed_writer(tmp_path):
    host = owner_tag().split("-")[0]
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    leftover = _leftover(tmp_path, "s1.json", f"{host}-{gone}-1")
    files.write_atomically(str(tmp_path / "s1.json"), "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s1.json"]
    assert not leftover.exists()
