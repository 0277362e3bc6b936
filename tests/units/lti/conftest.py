"""What the LTI tests share: a platform on 127.0.0.1 (grader.rehearsal.lti_platform) with a
class of three learners and an instructor, and the tool registered on it with its own keys."""

import pytest
from traitlets.config import Config

from grader.lti.keys import make_keys
from grader.lti.services import PlatformServices
from grader.lti.registration import registration_from
from grader.rehearsal.lti_platform import INSTRUCTOR, LtiPlatform

LAUNCH_URL = "http://127.0.0.1:9/lti/launch"  # where the platform posts the id_token


def tool_config(platform, **more):
    config = Config()
    for name, value in {**platform.settings, "launch_url": LAUNCH_URL, "retries": 3,
                        "backoff_seconds": 0.01, "timeout_seconds": 10.0, **more}.items():
        setattr(config.LtiTool, name, value)
    return config


@pytest.fixture(scope="module")
def tool_keys(tmp_path_factory):
    keys, _ = make_keys(str(tmp_path_factory.mktemp("course-data") / "lti"))
    return keys


@pytest.fixture(scope="module")
def platform(tool_keys):
    served = LtiPlatform()
    served.register_tool(LAUNCH_URL, tool_keys.jwks())
    served.add_member("sub-ada", "Ada", "Adams", "ada@example.edu")
    served.add_member("sub-bob", "Bob", "Brown", "bob@example.edu")
    served.add_member("sub-cy", "Cy", "Cole", "cy@example.edu")
    served.add_member("sub-prof", "Pat", "Prof", "prof@example.edu", role=INSTRUCTOR)
    served.start()
    yield served
    served.stop()


@pytest.fixture
def registration(platform):
    """The tool's registration on the platform, checked (c.LtiTool)."""
    return registration_from(tool_config(platform))


@pytest.fixture
def services(platform, tool_keys):
    """The tool's services on the platform, its line items and scores cleared first."""
    with platform.lock:
        platform.line_items.clear()
        platform.scores.clear()
        platform.failures.clear()
        platform.wrongly.clear()
    return PlatformServices(registration_from(tool_config(platform)), tool_keys,
                            sleep=lambda seconds: None)
