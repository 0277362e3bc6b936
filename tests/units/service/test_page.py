"""The students' page reads a saved notebook only from the asking student's own home: a hub
user with no account on this machine is told so, not answered with an error page."""

import pwd

import pytest

from grader.service.page.page import is_instructor, saved_notebooks

NOBODY_HERE = "gptc-no-such-account"


@pytest.fixture(autouse=True)
def no_such_account():
    with pytest.raises(KeyError):
        pwd.getpwnam(NOBODY_HERE)


def test_a_hub_user_with_no_account_here_has_no_saved_notebook_and_is_told_why():
    assert saved_notebooks(NOBODY_HERE, "tiny", ["tiny"]) == ({}, [
        f"your hub account, {NOBODY_HERE}, has no account on this machine, so no home folder "
        "to read a saved notebook from (ask your instructor)"])


def test_a_hub_user_with_no_account_here_is_no_instructor():
    assert is_instructor(NOBODY_HERE, "root") is False
