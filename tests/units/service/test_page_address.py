"""Where the course page listens: 127.0.0.1 unless told. The page over HTTP listens where
--address says (0.0.0.0 in a pod of its own, deploy/kubernetes/grader.yaml), shown here
with another of this machine's own addresses, 127.0.0.2; the file exchange's page, which
reads the students' homes, is refused any address beyond this machine."""

import os
import socket
import subprocess
import sys
import time

import pytest

from grader.service.commands import is_loopback
from testsupport.network import free_port
from testsupport.tiny_course import make_course

START_SECONDS = 60


def page(course, *args):
    env = dict(os.environ, JUPYTERHUB_SERVICE_PREFIX="/services/grading/")
    return subprocess.Popen([sys.executable, "-m", "grader", "page", "--course", course, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def answers(address, port):
    try:
        with socket.create_connection((address, port), timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture
def course(tmp_path):
    return make_course(str(tmp_path / "course"))


@pytest.mark.slow  # `python -m grader page`, a fresh interpreter
def test_the_page_over_http_listens_on_the_address_it_is_given_and_nowhere_else(course):
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write('\nc.HubTransport.transport = "http"\n')
    port = free_port()
    process = page(course, "--port", str(port), "--address", "127.0.0.2")
    try:
        deadline = time.monotonic() + START_SECONDS
        while not answers("127.0.0.2", port) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()[1][-3000:]
            time.sleep(0.2)
        assert answers("127.0.0.2", port)
        assert not answers("127.0.0.1", port)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.slow  # `python -m grader page`, a fresh interpreter
def test_the_exchange_page_is_refused_an_address_beyond_this_machine(course):
    process = page(course, "--port", str(free_port()), "--address", "0.0.0.0")
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2
    assert stderr.strip() == (
        "grader page: --address 0.0.0.0 refused: the page of the file exchange reads the "
        "students' homes on this machine and listens on 127.0.0.1 only; set "
        'c.HubTransport.transport = "http" for a page in a pod of its own')


def test_this_machines_own_addresses_are_loopback_and_no_other_is():
    assert [is_loopback(a) for a in ("127.0.0.1", "127.0.0.2", "::1", "localhost")] == [
        True] * 4
    assert [is_loopback(a) for a in ("0.0.0.0", "10.0.0.5", "::", "hub", "")] == [False] * 5
