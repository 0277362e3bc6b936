"""The launch buttons never open the course's own repository (book/_ext/launch_buttons.py):
with repository.url one of the git remotes of the checkout being built, which holds
solutions/, the build stops saying what to set; a separate repository turns them on."""

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx.errors import ConfigError

from testsupport.course import ROOT

# the extension imports its siblings of book/_ext, on the path as Sphinx has it
EXTENSIONS = str(Path(ROOT) / "book" / "_ext")
SPEC = importlib.util.spec_from_file_location(
    "launch_buttons", Path(EXTENSIONS) / "launch_buttons.py")
launch_buttons = importlib.util.module_from_spec(SPEC)
sys.path.insert(0, EXTENSIONS)
try:
    SPEC.loader.exec_module(launch_buttons)
finally:
    sys.path.remove(EXTENSIONS)


def built(folder, url):
    """The theme's options after the extension read repository.url = `url` for a book in
    `folder`."""
    launch = {"colab_url": "https://colab.research.google.com"}
    config = SimpleNamespace(html_theme_options={"repository_url": url, "launch_buttons": launch})
    launch_buttons._apply_repository_setting(SimpleNamespace(srcdir=str(folder)), config)
    return config.html_theme_options


@pytest.fixture
def checkout(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin",
                    "git@github.com:uni-ml/gptcourse-instructor.git"], check=True)
    return tmp_path


@pytest.mark.parametrize("url", ["https://github.com/uni-ml/gptcourse-instructor",
                                 "https://github.com/Uni-ML/gptcourse-instructor.git"])
def test_the_courses_own_repository_stops_the_build(checkout, url):
    with pytest.raises(ConfigError) as error:
        built(checkout, url)
    assert str(error.value) == (
        f"_config.yml: repository.url is {url!r}, this course's own repository (git remote "
        "'git@github.com:uni-ml/gptcourse-instructor.git'), which holds solutions/ and every "
        "hidden test: Binder and Colab would need it readable by every reader. Set it to a "
        "separate public repository that holds the bundle only (make publish-repo "
        "REMOTE=...; docs/publishing.md), or leave it empty.")


def test_the_bundles_own_repository_turns_the_buttons_on(checkout):
    options = built(checkout, "https://github.com/uni-ml/gptcourse-site")
    assert options["use_repository_button"] is True
    assert options["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
