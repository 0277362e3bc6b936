"""Where the course is published (grader.settings.site): c.CourseSite.url, https or a site on
this machine, checked where nbgrader_config.py sets it; and the course's own repository, never
an address students are sent to."""

import os
import subprocess

import pytest

from grader.settings import CourseError, load
from grader.settings.site import (own_remotes, own_repository_problems, repository_key,
                                  site_url, site_url_problem)
from testsupport.course import copy_course

PLAIN_HTTP = ("it is plain http, which anyone on the way can change, and students would install "
              "what it serves: use https (http is accepted on 127.0.0.1 only)")
SITES = [
    ("", None),
    ("https://uni-ml.github.io/gptcourse/", None),
    ("https://courses.example.edu:8443/ml/gpt", None),
    ("http://127.0.0.1:8000/", None),
    ("http://courses.example.edu/gpt/", PLAIN_HTTP),
    ("http://localhost:8000/", PLAIN_HTTP),
    ("ftp://courses.example.edu/gpt/", "it is not a web address: write it as https://HOST/PATH/"),
    ("uni-ml.github.io/gptcourse", "it is not a web address: write it as https://HOST/PATH/"),
    ("https://grader:secret@courses.example.edu/", "it holds a user name or password, which "
                                                  "every released notebook would show"),
    ("https://courses.example.edu/gpt/?term=fall", "it has a ?query or #fragment: give the "
                                                   "site's folder only"),
    ("https://courses.example.edu:port/", "it is not a web address (Port could not be cast to "
                                          "integer value as 'port')"),
]


@pytest.mark.parametrize("url, problem", SITES, ids=[s[0] or "empty" for s in SITES])
def test_a_site_address_is_https_or_on_this_machine(url, problem):
    assert site_url_problem(url) == problem


def test_a_plain_http_site_is_refused_with_the_line_of_the_setting(tmp_path):
    root = copy_course(str(tmp_path / "course"))
    config = os.path.join(root, "nbgrader_config.py")
    with open(config, "a", encoding="utf-8") as handle:
        handle.write('c.CourseSite.url = "http://courses.example.edu/gpt/"\n')
    lines = sum(1 for _ in open(config, encoding="utf-8"))
    with pytest.raises(CourseError) as error:
        load(root)
    assert str(error.value) == (f"{config}, line {lines}: c.CourseSite.url = "
                                f"'http://courses.example.edu/gpt/': not a published site's "
                                f"address: {PLAIN_HTTP}")
    with open(config, "a", encoding="utf-8") as handle:
        handle.write('c.CourseSite.url = "https://uni-ml.github.io/gptcourse/"\n')
    assert site_url(load(root).config) == "https://uni-ml.github.io/gptcourse"


@pytest.mark.parametrize("url, key", [
    ("https://github.com/Uni-ML/GPTcourse", "github.com/uni-ml/gptcourse"),
    ("https://github.com/uni-ml/gptcourse.git", "github.com/uni-ml/gptcourse"),
    ("git@github.com:uni-ml/gptcourse.git", "github.com/uni-ml/gptcourse"),
    ("github.com:uni-ml/gptcourse", "github.com/uni-ml/gptcourse"),  # scp form, no user
    ("ssh://git@github.com/uni-ml/gptcourse", "github.com/uni-ml/gptcourse"),
    ("https://github.com/uni-ml/gptcourse/blob/main/exercises/a.ipynb",
     "github.com/uni-ml/gptcourse"),
    ("https://raw.githubusercontent.com/uni-ml/gptcourse/main/", "github.com/uni-ml/gptcourse"),
    ("https://gitlab.example.edu/ml/gptcourse", "gitlab.example.edu/ml/gptcourse"),
    ("https://uni-ml.github.io/gptcourse/", None),  # a Pages site: what was deployed to it
    ("/srv/git/gptcourse.git", None),
    ("https://github.com/uni-ml", None),
])
def test_the_repository_an_address_points_into(url, key):
    assert repository_key(url) == key


def test_only_addresses_into_the_checkouts_own_remotes_are_problems(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert own_remotes(str(tmp_path)) == []
    for name, url in (("origin", "git@github.com:uni-ml/gptcourse-instructor.git"),
                      ("mirror", "https://gitlab.example.edu/ml/gptcourse")):
        subprocess.run(["git", "-C", str(tmp_path), "remote", "add", name, url], check=True)
    problems = own_repository_problems(str(tmp_path), {
        "the install address": "https://github.com/uni-ml/gptcourse-instructor/raw/main/x.whl",
        "the launch repository": "https://github.com/uni-ml/gptcourse-site",
        "the mirror": "https://gitlab.example.edu/ml/gptcourse.git",
        "the site": "https://uni-ml.github.io/gptcourse-instructor/"})
    assert [p.split(",")[0] for p in problems] == [
        "the install address is 'https://github.com/uni-ml/gptcourse-instructor/raw/main/x.whl'",
        "the mirror is 'https://gitlab.example.edu/ml/gptcourse.git'"]
    assert own_remotes(str(tmp_path / "not-a-checkout")) == []
