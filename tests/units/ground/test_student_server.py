"""The hand-in panel in a student's own server (grader.student_server), on a real contents
manager over a folder: Get never writes over the student's work, Check and Hand in send
what is saved and nothing else, the feedback never goes over a different file, and a
name the course page gives that is no plain name is refused before any file is touched."""

import asyncio
import base64
import json

import pytest
from jupyter_server.services.contents.filemanager import AsyncFileContentsManager

from grader.student_server import (CoursePage, Files, PanelError, feedback_into_server,
                                   get_released, send_saved)

RELEASED = json.dumps({"cells": [{"cell_type": "code", "source": "raise NotImplementedError()"}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


class FakePage:
    """The course page's API as the panel sees it: routes answered from a dict."""

    def __init__(self, answers):
        self.answers, self.sent = answers, []

    async def ask(self, route, body=None):
        if body is not None:
            self.sent.append((route, body))
            return {"message": f"{route}: {sorted(body['notebooks'])}"}
        answer = self.answers[route]
        if isinstance(answer, Exception):
            raise answer
        return answer


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.fixture
def files(tmp_path):
    return Files(AsyncFileContentsManager(root_dir=str(tmp_path))), tmp_path


def released_page():
    return FakePage({"released/tiny": {"notebooks": {
        "nb.ipynb": base64.b64encode(RELEASED).decode()}}})


def test_get_writes_the_released_notebook_then_keeps_the_students_changes(files):
    where, home = files
    page = released_page()
    assert run(get_released(page, where, "tiny")) == "written into your server: ~/tiny/nb.ipynb"
    assert (home / "tiny" / "nb.ipynb").read_bytes() == RELEASED
    assert run(get_released(page, where, "tiny")) == (
        "already on your server as released: ~/tiny/nb.ipynb")
    changed = RELEASED.replace(b"raise NotImplementedError()", b"x = 1")
    (home / "tiny" / "nb.ipynb").write_bytes(changed)
    assert run(get_released(page, where, "tiny")) == (
        "~/tiny/nb.ipynb holds your changes and is kept; the released notebook is written "
        "beside it as ~/tiny/nb.released.ipynb")
    assert (home / "tiny" / "nb.ipynb").read_bytes() == changed
    assert (home / "tiny" / "nb.released.ipynb").read_bytes() == RELEASED
    assert run(get_released(page, where, "tiny")).endswith(
        "~/tiny/nb.released.ipynb is there already and is kept too")


def test_get_refuses_a_notebook_name_that_is_no_plain_name(files):
    where, home = files
    page = FakePage({"released/tiny": {"notebooks": {
        "../../.bashrc": base64.b64encode(b"echo owned").decode()}}})
    with pytest.raises(PanelError, match="which is not a plain name"):
        run(get_released(page, where, "tiny"))
    assert list(home.rglob("*")) == []


def test_check_sends_the_saved_notebooks_the_course_lists_and_nothing_else(files):
    where, home = files
    (home / "tiny").mkdir()
    (home / "tiny" / "nb.ipynb").write_bytes(RELEASED)
    (home / "tiny" / "other.ipynb").write_bytes(b"{}")
    page = FakePage({"assignments": {"max_bytes": 1 << 20, "assignments": [
        {"name": "tiny", "notebooks": ["nb.ipynb", "missing.ipynb"]}]}})
    assert run(send_saved(page, where, "tiny", "check")) == "check/tiny: ['nb.ipynb']"
    [(route, body)] = page.sent
    assert base64.b64decode(body["notebooks"]["nb.ipynb"]) == RELEASED


def test_a_folder_or_an_oversized_file_where_the_notebook_should_be_is_refused(files):
    where, home = files
    (home / "tiny" / "nb.ipynb").mkdir(parents=True)
    page = FakePage({"assignments": {"max_bytes": 100, "assignments": [
        {"name": "tiny", "notebooks": ["nb.ipynb"]}]}})
    with pytest.raises(PanelError, match=r"~/tiny/nb.ipynb is a folder"):
        run(send_saved(page, where, "tiny", "hand-in"))
    (home / "tiny" / "nb.ipynb").rmdir()
    (home / "tiny" / "nb.ipynb").write_bytes(b"x" * 101)
    with pytest.raises(PanelError, match="more than a notebook may be"):
        run(send_saved(page, where, "tiny", "hand-in"))
    assert page.sent == []


def test_the_feedback_goes_in_once_and_never_over_a_different_file(files):
    where, home = files
    page = FakePage({"feedback/tiny": {"hand_in": 7, "pages": {
        "nb.html": base64.b64encode(b"<p>6 / 6</p>").decode()}}})
    assert run(feedback_into_server(page, where, "tiny")) == (
        "feedback written into your server: ~/tiny/feedback/7/nb.html")
    assert run(feedback_into_server(page, where, "tiny")) == (
        "already on your server: ~/tiny/feedback/7/nb.html")
    (home / "tiny" / "feedback" / "7" / "nb.html").write_bytes(b"my notes")
    assert run(feedback_into_server(page, where, "tiny")).endswith(
        "differs from your feedback and is kept; move it away to have the feedback written "
        "there")
    assert (home / "tiny" / "feedback" / "7" / "nb.html").read_bytes() == b"my notes"


def test_the_page_is_found_where_the_image_says_and_its_refusal_is_shown(monkeypatch):
    monkeypatch.setenv("COURSE_GRADING_URL", "http://proxy-public/")
    monkeypatch.setenv("JUPYTERHUB_BASE_URL", "/")
    assert run(CoursePage("grading-ml").where()) == "http://proxy-public/services/grading-ml/"
    with pytest.raises(PanelError, match="not a plain name"):
        CoursePage("../hub")
