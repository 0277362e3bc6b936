"""The platform's registration of the course as an LTI 1.3 tool (c.LtiTool), checked.

The traits are `LtiTool`'s (settings/lms.py). In nbgrader_config.py, with the values
the platform shows when the tool is registered (Canvas: the developer key; Moodle: the
external tool's details):

    c.LtiTool.issuer = "https://canvas.instructure.com"
    c.LtiTool.client_id = "10000000000001"
    c.LtiTool.deployment_ids = ["1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"]
    c.LtiTool.auth_login_url = "https://sso.canvaslms.com/api/lti/authorize_redirect"
    c.LtiTool.auth_token_url = "https://sso.canvaslms.com/login/oauth2/token"
    c.LtiTool.key_set_url = "https://sso.canvaslms.com/api/lti/security/jwks"
    c.LtiTool.lineitems_url = "https://canvas.example.edu/api/lti/courses/1234/line_items"
    c.LtiTool.memberships_url = "https://canvas.example.edu/api/lti/courses/1234/names_and_roles"

`registration_from` checks them all at once and names every one missing or wrong.
"""

import re
from dataclasses import dataclass

from traitlets.config import Config

from ..settings import LtiTool

ADDRESS = re.compile(r"https?://[^\s/]+(/\S*)?")
REQUIRED = ("issuer", "client_id", "auth_login_url", "auth_token_url", "key_set_url")
ADDRESSES = ("auth_login_url", "auth_token_url", "key_set_url", "lineitems_url",
             "memberships_url", "launch_url")


class LtiSetupError(Exception):
    """A setting of the LTI registration is missing or wrong: the instructor's to fix."""


@dataclass(frozen=True)
class LtiRegistration:
    """The tool's registration, checked: what the launch and the services need."""

    issuer: str
    client_id: str
    deployment_ids: tuple[str, ...]
    auth_login_url: str
    auth_token_url: str
    auth_audience: str
    key_set_url: str
    lineitems_url: str
    memberships_url: str
    launch_url: str
    key_folder: str
    retries: int = 4
    backoff_seconds: float = 1.0
    timeout_seconds: float = 30.0


def registration_problems(config: Config, needs: tuple[str, ...] = ()) -> list[str]:
    """What is missing or wrong in c.LtiTool of `config` (the settings `needs` required
    too), one line each; [] when none."""
    tool = LtiTool(config=config)
    problems = [f"c.LtiTool.{name} is not set" for name in REQUIRED + needs
                if not getattr(tool, name).strip()]
    problems += [f"c.LtiTool.{name} = {getattr(tool, name)!r} is not a web address "
                 f"(https://...)" for name in ADDRESSES
                 if getattr(tool, name).strip() and not ADDRESS.fullmatch(getattr(tool, name))]
    if not tool.deployment_ids:
        problems.append("c.LtiTool.deployment_ids is empty (the platform shows the "
                        "deployment id when the tool is added to the course)")
    if any(not d.strip() for d in tool.deployment_ids):
        problems.append("c.LtiTool.deployment_ids holds an empty id")
    if "/" in tool.key_folder.strip("/") or tool.key_folder.strip() in ("", ".", ".."):
        problems.append(f"c.LtiTool.key_folder = {tool.key_folder!r} must be one folder "
                        f"name under course-data/")
    return problems


def registration_from(config: Config, needs: tuple[str, ...] = ()) -> LtiRegistration:
    """The checked registration of c.LtiTool; LtiSetupError naming everything missing or
    wrong (docs/lti.md says where each value comes from)."""
    problems = registration_problems(config, needs)
    if problems:
        raise LtiSetupError("the LTI 1.3 registration in nbgrader_config.py: "
                            + "; ".join(problems) + " (see docs/lti.md)")
    tool = LtiTool(config=config)
    return LtiRegistration(
        tool.issuer.strip(), tool.client_id.strip(),
        tuple(d.strip() for d in tool.deployment_ids), tool.auth_login_url.strip(),
        tool.auth_token_url.strip(), tool.auth_audience.strip(), tool.key_set_url.strip(),
        tool.lineitems_url.strip(), tool.memberships_url.strip(), tool.launch_url.strip(),
        tool.key_folder.strip(), tool.retries, tool.backoff_seconds, tool.timeout_seconds)
