"""Does deploy/jupyterhub_lti13.py give the hub's LTI 1.3 login the course's registration, and
does that login refuse another course's deployment, a launch without the user name's claim
and a second platform user for one hub user?"""

import asyncio
import json
import pathlib

import pytest
from traitlets.config import Config

DEPLOY = pathlib.Path(__file__).resolve().parents[3] / "deploy"
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
ISSUER = "https://canvas.instructure.com"


def test_the_hubs_lti_login_takes_the_courses_registration(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.LtiTool.issuer = 'https://canvas.instructure.com'\n"
        "c.LtiTool.client_id = '10000000000042'\n"
        "c.LtiTool.deployment_ids = ['1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb']\n"
        "c.LtiTool.auth_login_url = 'https://sso.canvaslms.com/api/lti/authorize_redirect'\n"
        "c.LtiTool.key_set_url = 'https://sso.canvaslms.com/api/lti/security/jwks'\n")
    snippet = (DEPLOY / "jupyterhub_lti13.py").read_text()
    assert snippet.count('"/srv/course"') == 1
    config = Config()
    exec(snippet.replace('"/srv/course"', repr(str(tmp_path))), {"c": config})
    from grader.lti.hub_login import CourseLti13Authenticator  # jupyterhub: imports slowly

    assert config.JupyterHub.authenticator_class == (
        "grader.lti.hub_login.CourseLti13Authenticator")
    hub_login = CourseLti13Authenticator(config=config)
    assert (hub_login.issuer, hub_login.client_id, hub_login.authorize_url,
            hub_login.jwks_endpoint, hub_login.username_key, hub_login.deployment_ids) == (
        "https://canvas.instructure.com", {"10000000000042"},
        "https://sso.canvaslms.com/api/lti/authorize_redirect",
        "https://sso.canvaslms.com/api/lti/security/jwks", "custom_course_id",
        {"1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"})
    assert hub_login.login_url("/hub/") == "/hub/lti13/oauth_login"


@pytest.fixture
def hub_login(tmp_path):
    from grader.lti.hub_login import CourseLti13Authenticator

    config = Config()
    config.LTI13Authenticator.username_key = "custom_course_id"
    config.CourseLti13Authenticator.deployment_ids = {"course-deployment"}
    config.CourseLti13Authenticator.identities_file = str(tmp_path / "identities.json")
    return CourseLti13Authenticator(config=config)


def token(sub, course_id=None, deployment="course-deployment"):
    """The claims of a checked id_token (what jupyterhub-ltiauthenticator hands on)."""
    claims = {"iss": ISSUER, "sub": sub, LTI + "deployment_id": deployment}
    if course_id is not None:
        claims[LTI + "custom"] = {"course_id": course_id}
    return claims


def log_in(hub_login, claims):
    from ltiauthenticator.lti13.error import LoginError

    try:
        return asyncio.run(hub_login.authenticate(None, claims))["name"]
    except LoginError as error:
        return f"refused: {error}"


def test_a_launch_of_the_course_logs_in_under_its_custom_field_and_is_bound(hub_login):
    assert log_in(hub_login, token("lti-ada", "ada")) == "ada"
    assert log_in(hub_login, token("lti-ada", "ada")) == "ada"  # again: the same identity
    with open(hub_login.identities_file, encoding="utf-8") as handle:
        assert json.load(handle) == {"identities": [
            {"issuer": ISSUER, "subject": "lti-ada", "user": "ada"}]}


@pytest.mark.parametrize("claims, why", [
    (token("lti-eve", "eve", deployment="another-course"),
     "the launch comes from deployment 'another-course' of the platform, which is not this "
     "course's; nobody is logged in"),
    (token("lti-eve", "eve", deployment=""), "deployment '(none)'"),
    (token("ada"), "the launch carries no course_id (the custom field the hub's user name is "
                   "taken from); nobody is logged in"),
    (token("ada", "  "), "the launch carries no course_id"),
])
def test_another_deployment_or_a_launch_without_the_custom_field_logs_nobody_in(
        hub_login, claims, why):
    answer = log_in(hub_login, claims)
    assert answer.startswith("refused: ") and why in answer
    assert not pathlib.Path(hub_login.identities_file).exists()


def test_two_platform_users_never_become_one_hub_user(hub_login):
    assert log_in(hub_login, token("lti-ada", "ada")) == "ada"
    for other in ("ada", "ADA"):  # the hub's user names are lower case: ADA is ada
        assert log_in(hub_login, token("lti-mallory", other)) == (
            "refused: the hub user 'ada' belongs to another user of the platform; nobody is "
            "logged in (two platform users give the same user name: correct it on the "
            "platform)")
    assert log_in(hub_login, token("lti-ada", "eve")).startswith(
        "refused: this platform user logs in to the hub as 'ada', not 'eve'")
    assert log_in(hub_login, token("lti-mallory", "mallory")) == "mallory"
