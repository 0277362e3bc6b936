"""Students log into the course's hub from the LMS by LTI 1.3: a real JupyterHub configured
by deploy/jupyterhub_lti13.py (jupyterhub-ltiauthenticator, grader/lti/hub_login.py), the
platform of `make rehearse-lti` on 127.0.0.1. A launch signed by the platform logs the
student in under the username its custom field carries; a launch signed with a key the
platform does not publish, one that has expired, one from another course's deployment of the
tool, one without the custom field (whose sub names another hub user) and one of a second
platform user with a student's user name log nobody in."""

import os
import secrets
import subprocess
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from grader.rehearsal.lti_platform import LtiPlatform, auth_form_fields, rsa_key_pair
from testsupport.course import ROOT
from testsupport.hub import VENV_BIN, install_proxy
from testsupport.network import free_port

START_SECONDS = 120
HUB_CONFIG = """\
c = get_config()
exec(open({snippet!r}).read().replace('"/srv/course"', {course!r}))
c.LTI13Authenticator.uri_scheme = "http"  # 127.0.0.1, no reverse proxy
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.services = [{{"name": "lti-check", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "lti-check", "scopes": ["list:users", "read:users"],
                             "services": ["lti-check"]}}]
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """(hub URL, platform, API token): a hub whose login is the platform's LTI 1.3 launch."""
    base = tmp_path_factory.mktemp("lti-hub")
    platform = LtiPlatform().start()
    port, token = free_port(), secrets.token_hex(16)
    platform.register_tool(f"http://127.0.0.1:{port}/hub/lti13/oauth_callback", {"keys": []})
    for sub, given, name in (("lti-ada", "Ada", "ada"), ("lti-eve", "Eve", "eve"),
                             ("lti-lou", "Lou", "lou"), ("lti-kim", "Kim", "kim"),
                             ("lti-ada-2", "Ada", "ADA")):
        platform.add_member(sub, given, "Student", f"{name}@example.edu",
                            custom={"course_id": name})
    # a learner the tool is given no course id for, whose platform user id is a student's name
    platform.add_member("ada", "Anonymous", "Learner", "anon@example.edu")
    course = base / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\n" + "".join(
        f"c.LtiTool.{name} = {value!r}\n" for name, value in platform.settings.items()))
    config = base / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        snippet=os.path.join(ROOT, "deploy", "jupyterhub_lti13.py"), course=repr(str(course)),
        port=port, hub_port=free_port(), api_port=free_port(), proxy=install_proxy(),
        token=token))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "GPTCOURSE_"))}
    log = base / "hub.log"
    with open(log, "w") as output:
        process = subprocess.Popen([os.path.join(VENV_BIN, "jupyterhub"), "-f", str(config)],
                                   cwd=base, env=env, stdout=output, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert process.poll() is None, log.read_text()[-4000:]
            try:
                if requests.get(url + "/hub/health", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline, log.read_text()[-4000:]
            time.sleep(0.5)
        yield url, platform, token, log
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=60)
        platform.stop()


def launch(hub_url, platform, sub, forge=None):
    """The browser's way through an LTI launch from the platform into the hub: the login
    initiation posted to the hub, the hub's authorization request to the platform, the
    platform's form posted back to the hub; `forge(nonce)` replaces the id_token. Returns
    the hub's answer to that last post, and the browser's cookies."""
    browser = requests.Session()
    started = browser.post(hub_url + "/hub/lti13/oauth_login",
                           data=platform.login_initiation(sub), allow_redirects=False)
    assert started.status_code == 302, started.text
    asked = started.headers["Location"]
    assert asked.startswith(platform.url + "/auth?")
    form = browser.get(asked)
    assert form.status_code == 200, form.text
    fields = auth_form_fields(form.text)
    if forge is not None:
        fields["id_token"] = forge(parse_qs(urlsplit(asked).query)["nonce"][0])
    return browser.post(hub_url + "/hub/lti13/oauth_callback", data=fields,
                        allow_redirects=False), browser


def hub_user(hub_url, token, name):
    answer = requests.get(f"{hub_url}/hub/api/users/{name}",
                          headers={"Authorization": f"token {token}"}, timeout=30)
    return answer.json() if answer.status_code == 200 else None


def test_a_launch_from_the_platform_logs_the_student_in_under_their_course_id(hub):
    hub_url, platform, token, log = hub
    answer, browser = launch(hub_url, platform, "lti-ada")
    assert answer.status_code == 302, answer.text + log.read_text()[-3000:]
    assert any(c.name.startswith("jupyterhub-session-id") for c in browser.cookies)
    assert hub_user(hub_url, token, "ada")["name"] == "ada"
    home = browser.get(hub_url + "/hub/home", allow_redirects=False)
    assert home.status_code == 200 and "ada" in home.text


def test_a_launch_signed_with_an_unknown_key_logs_nobody_in(hub):
    hub_url, platform, token, _ = hub
    other_key, _ = rsa_key_pair()
    answer, _ = launch(hub_url, platform, "lti-eve", lambda nonce: platform.id_token(
        "lti-eve", nonce, private_pem=other_key, kid="not-the-platforms-key"))
    assert answer.status_code == 400
    assert ("Unable to find a signing key that matches: &#34;not-the-platforms-key&#34;"
            in answer.text)
    assert hub_user(hub_url, token, "eve") is None


def test_an_expired_launch_logs_nobody_in(hub):
    hub_url, platform, token, _ = hub
    answer, _ = launch(hub_url, platform, "lti-lou",
                       lambda nonce: platform.id_token("lti-lou", nonce, expires_in=-3600))
    assert answer.status_code == 400 and "Signature has expired" in answer.text
    assert hub_user(hub_url, token, "lou") is None


def logged_in(hub_url, browser):
    """Whether the browser's cookies log it into the hub."""
    return browser.get(hub_url + "/hub/home", allow_redirects=False).status_code == 200


def test_a_launch_from_another_courses_deployment_logs_nobody_in(hub):
    hub_url, platform, token, log = hub
    answer, browser = launch(hub_url, platform, "lti-kim", lambda nonce: platform.id_token(
        "lti-kim", nonce, deployment_id="another-course-deployment"))
    assert answer.status_code == 400, answer.text + log.read_text()[-3000:]
    assert "the launch comes from deployment" in answer.text
    assert "which is not this course" in answer.text
    assert not logged_in(hub_url, browser) and hub_user(hub_url, token, "kim") is None


def test_a_launch_without_the_custom_field_is_not_logged_in_as_the_user_its_sub_names(hub):
    hub_url, platform, token, log = hub
    assert launch(hub_url, platform, "lti-ada")[0].status_code == 302  # ada's own launch
    answer, browser = launch(hub_url, platform, "ada")  # sub 'ada', no course_id
    assert answer.status_code == 400, answer.text + log.read_text()[-3000:]
    assert "the launch carries no course_id" in answer.text
    assert not logged_in(hub_url, browser)


def test_a_second_platform_user_with_a_students_user_name_logs_nobody_in(hub):
    hub_url, platform, token, log = hub
    assert launch(hub_url, platform, "lti-ada")[0].status_code == 302
    answer, browser = launch(hub_url, platform, "lti-ada-2")  # course_id ADA: the hub's ada
    assert answer.status_code == 400, answer.text + log.read_text()[-3000:]
    assert "belongs to another user of the platform" in answer.text
    assert not logged_in(hub_url, browser)
    again, browser = launch(hub_url, platform, "lti-ada")  # ada herself still logs in
    assert again.status_code == 302 and logged_in(hub_url, browser)
