"""Does the tool accept a launch only as LTI 1.3 says: signed by a key of the platform's key
set, unexpired, for its nonce, client id and deployment?"""

import dataclasses
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from grader.lti.launch import LaunchRefused, ToolLaunch
from grader.rehearsal.lti_platform import auth_form_fields, rsa_key_pair


@pytest.fixture
def tool(registration, tool_keys):
    return ToolLaunch(registration, tool_keys)


def auth_request(tool, platform, user="sub-ada"):
    """(the tool's authorization request to the platform, its query)."""
    address = tool.login(platform.login_initiation(user))
    return address, {k: v[0] for k, v in parse_qs(urlsplit(address).query).items()}


def test_a_student_is_launched_through_login_authorization_and_id_token(tool, platform):
    address, query = auth_request(tool, platform)
    assert address.startswith(platform.url + "/auth?") and query["login_hint"] == "sub-ada"
    page = requests.get(address, timeout=10)
    assert page.status_code == 200
    launched = tool.launch(auth_form_fields(page.text))
    assert (launched.user_id, launched.name, launched.email, launched.deployment_id) == (
        "sub-ada", "Ada Adams", "ada@example.edu", "rehearsal-deployment-1")


def test_a_token_signed_with_an_unknown_kid_is_refused(tool, platform):
    _, query = auth_request(tool, platform)
    stranger, _ = rsa_key_pair()
    token = platform.id_token("sub-ada", query["nonce"], private_pem=stranger, kid="not-ours")
    with pytest.raises(LaunchRefused, match="Unable to find public key"):
        tool.launch({"id_token": token, "state": query["state"]})


def test_a_token_with_the_platforms_kid_but_another_key_is_refused(tool, platform):
    _, query = auth_request(tool, platform)
    stranger, _ = rsa_key_pair()
    token = platform.id_token("sub-ada", query["nonce"], private_pem=stranger)
    with pytest.raises(LaunchRefused, match="Signature verification failed"):
        tool.launch({"id_token": token, "state": query["state"]})


def test_an_expired_token_is_refused(tool, platform):
    _, query = auth_request(tool, platform)
    token = platform.id_token("sub-ada", query["nonce"], expires_in=-60)
    with pytest.raises(LaunchRefused, match="Signature has expired"):
        tool.launch({"id_token": token, "state": query["state"]})


def test_a_token_for_a_nonce_the_tool_never_gave_is_refused(tool, platform):
    _, query = auth_request(tool, platform)
    token = platform.id_token("sub-ada", "a-nonce-from-elsewhere")
    with pytest.raises(LaunchRefused, match="Invalid Nonce"):
        tool.launch({"id_token": token, "state": query["state"]})


def test_a_state_the_browser_does_not_hold_is_refused(tool, platform):
    _, query = auth_request(tool, platform)
    token = platform.id_token("sub-ada", query["nonce"])
    with pytest.raises(LaunchRefused, match="State not found"):
        tool.launch({"id_token": token, "state": "state-forged"})


def test_a_deployment_the_tool_was_not_given_is_refused(platform, registration, tool_keys):
    tool = ToolLaunch(dataclasses.replace(registration, deployment_ids=("another-deployment",)),
                      tool_keys)
    _, query = auth_request(tool, platform)
    token = platform.id_token("sub-ada", query["nonce"])
    with pytest.raises(LaunchRefused, match="deployment ID .* is not recognised"):
        tool.launch({"id_token": token, "state": query["state"]})
