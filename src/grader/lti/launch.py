"""The tool's side of an LTI 1.3 launch, on pylti1p3: the OIDC login and the id_token checked.

    platform -> tool   login initiation (iss, login_hint, target_link_uri, ...)
    tool -> platform   the authorization request (`ToolLaunch.login`): a state kept as a
                       cookie, a nonce kept in the session
    platform -> tool   the id_token, posted with the state to the launch URL
                       (`ToolLaunch.launch`)

pylti1p3 checks the id_token: the state against the cookie, the signature
against the platform's key set (fetched from c.LtiTool.key_set_url, found by
the token's ``kid``), the expiry, the nonce against the session, the issuer and
audience (the client id) against the registration, the deployment id, and the
message itself. Any failure raises `LaunchRefused` saying which. A
`ToolLaunch` is one browser's session: its cookies and session live in memory.
"""

from dataclasses import dataclass
from typing import Any

import jwt
from pylti1p3.cookie import CookieService
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfDict

from .keys import ToolKeys
from .registration import LtiRegistration

LTI = "https://purl.imsglobal.org/spec/lti/claim/"


class LaunchRefused(Exception):
    """The platform's login or launch did not pass the tool's checks."""


@dataclass(frozen=True)
class LaunchedUser:
    """Who a checked launch is for, and where the course's services are."""

    user_id: str  # the sub: the LTI user id the roster keeps
    name: str
    email: str
    roles: tuple[str, ...]
    context_id: str
    deployment_id: str


class BrowserRequest(Request):
    """One request from the browser: its parameters, and the browser's session."""

    def __init__(self, params: dict[str, str], session: dict[str, Any]):
        self.params = params
        self.browser_session = session

    @property
    def session(self) -> dict[str, Any]:
        return self.browser_session

    def is_secure(self) -> bool:
        return True

    def get_param(self, key: str) -> str:
        return self.params.get(key, "")


class BrowserCookies(CookieService):
    """The browser's cookies, in memory."""

    def __init__(self, jar: dict[str, str]):
        self.jar = jar

    def get_cookie(self, name: str) -> str | None:
        return self.jar.get(self._cookie_prefix + "-" + name)

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self.jar[self._cookie_prefix + "-" + name] = str(value)


class AddressRedirect(Redirect[str]):
    """A redirect that is only its address (the browser follows it)."""

    def __init__(self, location: str):
        self.location = location

    def do_redirect(self) -> str:
        return self.location

    def do_js_redirect(self) -> str:
        return self.location

    def set_redirect_url(self, location: str) -> None:
        self.location = location

    def get_redirect_url(self) -> str:
        return self.location


class ToolLogin(OIDCLogin):
    def get_redirect(self, url: str) -> AddressRedirect:
        return AddressRedirect(url)


class ToolMessageLaunch(MessageLaunch):
    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


def tool_config(registration: LtiRegistration, keys: ToolKeys) -> ToolConfDict:
    """pylti1p3's configuration of the registration, with the tool's key pair."""
    config = ToolConfDict({registration.issuer: [{
        "default": True, "client_id": registration.client_id,
        "auth_login_url": registration.auth_login_url,
        "auth_token_url": registration.auth_token_url,
        "auth_audience": registration.auth_audience or None,
        "key_set_url": registration.key_set_url, "key_set": None,
        "deployment_ids": list(registration.deployment_ids)}]})
    config.set_private_key(registration.issuer, keys.private_pem, registration.client_id)
    config.set_public_key(registration.issuer, keys.public_pem, registration.client_id)
    return config


class ToolLaunch:
    """The tool's login and launch for one browser."""

    def __init__(self, registration: LtiRegistration, keys: ToolKeys):
        self.registration = registration
        self.config = tool_config(registration, keys)
        self.session: dict[str, Any] = {}
        self.cookies: dict[str, str] = {}

    def services(self, params: dict[str, str]) -> tuple[BrowserRequest, dict[str, Any]]:
        request = BrowserRequest(params, self.session)
        return request, {"session_service": SessionService(request),
                         "cookie_service": BrowserCookies(self.cookies)}

    def login(self, params: dict[str, str]) -> str:
        """The address of the authorization request that answers the platform's login
        initiation `params`; LaunchRefused for an issuer or client the tool does not know."""
        request, services = self.services(params)
        launch_url = self.registration.launch_url or params.get("target_link_uri", "")
        try:
            return ToolLogin(request, self.config, **services).redirect(launch_url)
        except (LtiException, OIDCException) as error:
            raise LaunchRefused(f"the login from {params.get('iss') or 'no issuer'} is "
                                f"refused: {error}") from None

    def launch(self, form: dict[str, str]) -> LaunchedUser:
        """Who the id_token posted in `form` (with its state) launched; LaunchRefused
        saying why a token is not accepted."""
        request, services = self.services(form)
        message = ToolMessageLaunch(request, self.config, **services)
        try:
            claims = message.get_launch_data()
        except (LtiException, jwt.InvalidTokenError) as error:
            raise LaunchRefused(f"the launch is refused: {error}") from None
        return LaunchedUser(str(claims["sub"]), str(claims.get("name", "")),
                            str(claims.get("email", "")), tuple(claims.get(LTI + "roles", [])),
                            str(claims.get(LTI + "context", {}).get("id", "")),
                            str(claims.get(LTI + "deployment_id", "")))
