"""The course's environment (.venv, from requirements.lock): whole, and without the one
optional package that cost every notebook-reading process two seconds.

jsonschema checks the "iri" format with rfc3987-syntax when it is installed, and that
package builds 38 Earley grammars with lark when it is imported: about 2 s of processor
time in each process that imports nbformat (every nbgrader command, every Jupyter server,
every notebook run by nbclient). The Makefile leaves it out of the lock (LEFT_OUT).
"""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def makefile():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as handle:
        return handle.read()


def left_out():
    return re.search(r"^LEFT_OUT := (.+)$", makefile(), re.MULTILINE).group(1).split()


def test_the_lock_pins_nothing_the_makefile_leaves_out():
    with open(os.path.join(ROOT, "requirements.lock"), encoding="utf-8") as handle:
        pinned = {line.split("==")[0].lower() for line in handle if re.match(r"^[A-Za-z0-9]", line)}
    assert left_out() == ["rfc3987-syntax", "lark"]
    assert not pinned & set(left_out())
    assert {"jsonschema", "nbformat", "jupyter-events", "torch"} <= pinned


def test_the_lock_is_installed_whole_without_pips_resolution():
    """Without --no-deps pip (or uv) would ask for the packages left out, which have no hash;
    uv installs the lock, pip where uv cannot, and uv itself is installed from the lock."""
    commands = [command.strip() for line in makefile().replace("\\\n", " ").splitlines()
                for command in re.split(r"\|\||;", line)]
    installs = [command for command in commands if re.search(r"(uv pip|-m pip) install", command)]
    of_the_lock = [command for command in installs if "-r requirements.lock" in command]
    assert [re.search(r"(uv pip|-m pip) install", c).group(1) for c in of_the_lock] == [
        "uv pip", "-m pip"]
    assert all("--require-hashes" in c and "--no-deps" in c for c in of_the_lock)
    [pinned_uv] = [command for command in installs if "uv-pin.txt" in command]
    assert "--require-hashes" in pinned_uv
    with open(os.path.join(ROOT, "requirements.lock"), encoding="utf-8") as handle:
        assert re.search(r"^uv==[\d.]+ \\$", handle.read(), re.MULTILINE)


def test_reading_a_notebook_builds_no_grammar():
    probe = ("import sys, nbformat, jsonschema\n"
             "print(sorted(m for m in ('rfc3987_syntax', 'lark') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.slow  # pip reads every installed package's metadata: seconds
def test_every_requirement_of_the_environment_is_installed():
    checked = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True,
                             text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
