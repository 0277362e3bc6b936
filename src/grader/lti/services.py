"""The platform's LTI Advantage services (AGS, NRPS) as the tool calls them.

An access token is asked for as LTI 1.3's security framework says: an OAuth2
client-credentials grant whose client assertion is a JWT the tool signs with
its private key (``iss`` and ``sub`` the client id, ``aud`` the token URL), for
the scopes a call needs; it is kept until shortly before it expires. Every
request is retried, with a wait doubled each time, while the platform answers
5xx or cannot be reached; a 401 raises `LmsRefused` (the registration or the
key is wrong: nothing more is sent); any other error answer `LmsRequestFailed`.
"""

import time
import uuid
from collections.abc import Callable
from typing import Any

import jwt
import requests

from ..lms import LmsRefused, LmsRequestFailed, LmsUnavailable
from .keys import ToolKeys
from .registration import LtiRegistration

CLIENT_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
RESULT_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
MEMBERSHIP_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


class PlatformServices:
    """The platform's services for one registration, signed with the tool's keys."""

    def __init__(self, registration: LtiRegistration, keys: ToolKeys,
                 sleep: Callable[[float], None] = time.sleep):
        self.registration = registration
        self.keys = keys
        self.sleep = sleep
        self.http = requests.Session()
        self.tokens: dict[str, tuple[str, float]] = {}  # scopes -> (token, expires at)

    def client_assertion(self) -> str:
        """The signed JWT that stands for the tool's secret in a token request."""
        now = int(time.time())
        audience = self.registration.auth_audience or self.registration.auth_token_url
        claims = {"iss": self.registration.client_id, "sub": self.registration.client_id,
                  "aud": audience, "iat": now, "exp": now + 300, "jti": uuid.uuid4().hex}
        return jwt.encode(claims, self.keys.signing_key(), algorithm="RS256",
                          headers={"kid": self.keys.kid})

    def access_token(self, scopes: tuple[str, ...]) -> str:
        """A bearer token for `scopes`, asked for anew shortly before the last expires."""
        key = " ".join(sorted(scopes))
        held = self.tokens.get(key)
        if held and held[1] > time.monotonic() + 30:
            return held[0]
        form = {"grant_type": "client_credentials", "client_assertion_type": CLIENT_ASSERTION,
                "client_assertion": self.client_assertion(), "scope": key}
        answer = self.send("the access token", "POST", self.registration.auth_token_url,
                           None, data=form)
        try:
            body = answer.json()
            token, lifetime = body["access_token"], float(body.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError):
            raise LmsRequestFailed(f"the platform's token endpoint "
                                   f"{self.registration.auth_token_url} answered without an "
                                   f"access token") from None
        self.tokens[key] = (token, time.monotonic() + lifetime)
        return token

    def call(self, what: str, method: str, url: str, scopes: tuple[str, ...],
             media_type: str, body: dict[str, Any] | None = None,
             params: dict[str, str] | None = None) -> requests.Response:
        """One service request with a token for `scopes`, retried while answered 5xx."""
        headers = {"Accept": media_type}
        if body is not None:
            headers["Content-Type"] = media_type
        return self.send(what, method, url, scopes, json=body, params=params, headers=headers)

    def send(self, what: str, method: str, url: str, scopes: tuple[str, ...] | None,
             **request: Any) -> requests.Response:
        """`method` `url`, retried while the platform answers 5xx or cannot be reached."""
        wait = self.registration.backoff_seconds
        for attempt in range(self.registration.retries + 1):
            if scopes is not None:
                request.setdefault("headers", {})["Authorization"] = (
                    "Bearer " + self.access_token(scopes))
            try:
                answer = self.http.request(method, url, timeout=self.registration.timeout_seconds,
                                           **request)
            except (requests.ConnectionError, requests.Timeout) as error:
                problem = f"{what}: {url} cannot be reached ({type(error).__name__})"
            else:
                if answer.status_code < 400:
                    return answer
                if answer.status_code == 401:
                    raise LmsRefused(
                        f"{what}: the platform at {url} refused the tool (401: "
                        f"{answer.text[:200].strip() or 'no reason given'}): check "
                        f"c.LtiTool.client_id, and that the platform holds the tool's "
                        f"public key (course-data/{self.registration.key_folder}/jwks.json)")
                if answer.status_code < 500:
                    raise LmsRequestFailed(f"{what}: {method} {url} answered "
                                           f"{answer.status_code}: {answer.text[:300].strip()}")
                problem = f"{what}: {method} {url} answered {answer.status_code}"
            if attempt == self.registration.retries:
                raise LmsUnavailable(f"{problem} (after {attempt + 1} tries)")
            self.sleep(wait)
            wait *= 2
        raise AssertionError("unreachable: the last try returns or raises")
