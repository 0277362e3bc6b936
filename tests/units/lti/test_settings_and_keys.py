"""Is the registration checked with every missing or wrong setting named, and is the tool's
private key kept to its owner, never replaced and never shown?"""

import json
import os
import stat

import pytest
from traitlets.config import Config

from grader.lti.keys import KEY_SET, PRIVATE_KEY, make_keys, read_keys
from grader.lti.registration import LtiSetupError, registration_from, registration_problems


def test_an_empty_registration_names_every_setting_it_needs():
    assert registration_problems(Config()) == [
        "c.LtiTool.issuer is not set", "c.LtiTool.client_id is not set",
        "c.LtiTool.auth_login_url is not set", "c.LtiTool.auth_token_url is not set",
        "c.LtiTool.key_set_url is not set",
        "c.LtiTool.deployment_ids is empty (the platform shows the deployment id when the "
        "tool is added to the course)"]


def test_a_setting_that_is_not_a_web_address_is_named_with_its_value():
    config = Config()
    config.LtiTool.issuer, config.LtiTool.client_id = "https://lms.example.edu", "17"
    config.LtiTool.deployment_ids = ["1:abc"]
    config.LtiTool.auth_login_url = "https://lms.example.edu/auth"
    config.LtiTool.auth_token_url = "lms.example.edu/token"
    config.LtiTool.key_set_url = "https://lms.example.edu/jwks"
    with pytest.raises(LtiSetupError, match=r"c\.LtiTool\.lineitems_url is not set; c\.LtiTool"
                                            r"\.auth_token_url = 'lms\.example\.edu/token' "
                                            r"is not a web address"):
        registration_from(config, needs=("lineitems_url",))
    config.LtiTool.auth_token_url = "https://lms.example.edu/token"
    assert registration_from(config).deployment_ids == ("1:abc",)


def test_the_private_key_is_its_owners_only_and_made_once(tmp_path):
    folder = str(tmp_path / "lti")
    keys, made = make_keys(folder)
    assert made and stat.S_IMODE(os.stat(os.path.join(folder, PRIVATE_KEY)).st_mode) == 0o600
    assert "PRIVATE" not in repr(keys)
    again, made = make_keys(folder)
    assert (again, made) == (keys, False)
    [key] = json.loads((tmp_path / "lti" / KEY_SET).read_text())["keys"]
    assert (key["kid"], key["alg"], key["kty"], "d" in key) == (keys.kid, "RS256", "RSA", False)


def test_a_private_key_others_can_read_is_refused(tmp_path):
    folder = str(tmp_path / "lti")
    make_keys(folder)
    os.chmod(os.path.join(folder, PRIVATE_KEY), 0o644)
    with pytest.raises(LtiSetupError, match=r"can be read by others \(mode 644\): chmod 600"):
        read_keys(folder)


def test_no_key_pair_says_to_make_one(tmp_path):
    with pytest.raises(LtiSetupError, match=r"cannot be read .*make lti-keys"):
        read_keys(str(tmp_path / "none"))
