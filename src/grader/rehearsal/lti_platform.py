"""A small LTI 1.3 platform on 127.0.0.1, for the LTI rehearsal and its tests.

lti1p3platform gives it what a platform signs and checks: its key pair and
JWKS, the id_token of a launch, the access tokens of the tool's client
credentials grant (the tool's assertion checked against the tool's key set) and
their check on each service call. It has no gradebook of its own, so this one
keeps, in memory, the course's members (NRPS), its line items and every score
posted to them (AGS), and the results they come to. A token is granted only for
an assertion signed by a key of the tool's key set whose iss and sub are the
client id and whose aud is the token URL.

    GET  /jwks                               the platform's public keys
    GET  /auth?...                           the OIDC authorization request: a form
                                             that posts the id_token to the tool
    POST /token                              client credentials -> access token
    GET  /course/memberships                 NRPS
    GET  /course/lineitems  POST ...         AGS line items
    GET  /course/lineitems/N/results         AGS results
    POST /course/lineitems/N/scores          AGS scores

`fail_once` makes the next matching request answer an error (503: a retry
must follow); `record_wrongly` records one student's scores off by some
points, so that a rehearsal can be seen to catch a difference;
`delete_line_item` deletes a column as an instructor can in the platform.
"""

import html
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration

STOP_POLL_SECONDS = 0.05  # how soon a server's serve_forever notices stop()

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
SCOPES = {"lineitem": "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
          "results": "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
          "scores": "https://purl.imsglobal.org/spec/lti-ags/scope/score",
          "memberships": "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership"
                         ".readonly"}
ISSUER = "https://platform.rehearsal.invalid"
CLIENT_ID = "rehearsal-client"
DEPLOYMENT_ID = "rehearsal-deployment-1"


def rsa_key_pair() -> tuple[str, str]:
    """(private PEM, public PEM) of a new RSA key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return (key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()).decode(),
            key.public_key().public_bytes(serialization.Encoding.PEM,
                                          serialization.PublicFormat.SubjectPublicKeyInfo
                                          ).decode())


class PlatformSecurity(LTI1P3PlatformConfAbstract):
    """lti1p3platform's side of one tool's registration: tokens made and checked."""

    def init_platform_config(self, **kwargs: Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        return self._registration


class LtiPlatform:
    """The platform: one course, its members, line items and scores, served over HTTP."""

    def __init__(self) -> None:
        self.private_pem, self.public_pem = rsa_key_pair()
        self.registration = (Registration().set_iss(ISSUER).set_client_id(CLIENT_ID)
                             .set_deployment_id(DEPLOYMENT_ID)
                             .set_platform_private_key(self.private_pem)
                             .set_platform_public_key(self.public_pem))
        self.security = PlatformSecurity(registration=self.registration)
        self.lock = threading.Lock()
        self.members: list[dict[str, Any]] = []
        self.line_items: dict[int, dict[str, Any]] = {}
        self.scores: dict[int, list[dict[str, Any]]] = {}  # every score posted, in order
        self.numbers = itertools.count(1)
        self.failures: list[tuple[str, str, int]] = []  # (method, path pattern, status)
        self.wrongly: dict[str, float] = {}  # user id -> points added to what is posted
        self.requests: list[tuple[str, str, int]] = []  # (method, path, status answered)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler_class())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       args=(STOP_POLL_SECONDS,), daemon=True)

    # what the tool is told when it is registered
    @property
    def settings(self) -> dict[str, Any]:
        """The c.LtiTool settings of the tool's registration on this platform."""
        return {"issuer": ISSUER, "client_id": CLIENT_ID, "deployment_ids": [DEPLOYMENT_ID],
                "auth_login_url": self.url + "/auth", "auth_token_url": self.url + "/token",
                "key_set_url": self.url + "/jwks",
                "lineitems_url": self.url + "/course/lineitems",
                "memberships_url": self.url + "/course/memberships"}

    def register_tool(self, launch_url: str, tool_key_set: dict[str, Any]) -> None:
        """The tool's launch URL and public key set, as an administrator enters them."""
        self.registration.set_launch_url(launch_url).set_tool_key_set(tool_key_set)

    def add_member(self, user_id: str, given: str, family: str, email: str,
                   role: str = LEARNER, custom: dict[str, str] | None = None) -> None:
        """A member of the course; `custom` are the tool's custom fields as their launch
        carries them (a username for the hub, say)."""
        self.members.append({"status": "Active", "user_id": user_id, "given_name": given,
                             "family_name": family, "name": f"{given} {family}",
                             "email": email, "roles": [role], "custom": custom or {}})

    def fail_once(self, method: str, path: str, status: int = 503) -> None:
        """The next `method` request whose path matches the pattern `path` answers `status`."""
        self.failures.append((method, path, status))

    def record_wrongly(self, user_id: str, points: float) -> None:
        self.wrongly[user_id] = points

    def delete_line_item(self, number: int) -> None:
        """Line item `number` and its scores deleted, as an instructor deletes a column of
        the platform's gradebook."""
        with self.lock:
            del self.line_items[number]
            self.scores.pop(number, None)

    def start(self) -> "LtiPlatform":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # the launch
    def login_initiation(self, user_id: str) -> dict[str, str]:
        """The third-party login initiation the platform sends the tool for `user_id`."""
        return {"iss": ISSUER, "login_hint": user_id, "lti_message_hint": "resource-1",
                "target_link_uri": self.registration.get_launch_url() or "",
                "client_id": CLIENT_ID, "lti_deployment_id": DEPLOYMENT_ID}

    def id_token(self, user_id: str, nonce: str, private_pem: str | None = None,
                 kid: str | None = None, expires_in: int = 300,
                 deployment_id: str = DEPLOYMENT_ID) -> str:
        """The signed id_token of `user_id`'s launch (with another key or kid, already
        expired with a negative `expires_in`, or from another deployment of the tool, for
        the tests of what a tool refuses)."""
        member = next((m for m in self.members if m["user_id"] == user_id), {})
        now = int(time.time())
        claims = {
            "iss": ISSUER, "aud": CLIENT_ID, "azp": CLIENT_ID, "sub": user_id, "nonce": nonce,
            "iat": now - 5, "exp": now + expires_in,
            "name": member.get("name", ""), "given_name": member.get("given_name", ""),
            "family_name": member.get("family_name", ""), "email": member.get("email", ""),
            LTI + "message_type": "LtiResourceLinkRequest", LTI + "version": "1.3.0",
            LTI + "deployment_id": deployment_id,
            LTI + "target_link_uri": self.registration.get_launch_url(),
            LTI + "resource_link": {"id": "resource-1", "title": "The course"},
            LTI + "roles": member.get("roles", [LEARNER]),
            LTI + "context": {"id": "course-1", "label": "GPT", "title": "The course"},
            LTI + "custom": member.get("custom", {}),
            AGS_CLAIM: {"scope": list(SCOPES.values())[:3],
                        "lineitems": self.settings["lineitems_url"]},
            NRPS_CLAIM: {"context_memberships_url": self.settings["memberships_url"],
                         "service_versions": ["2.0"]}}
        headers = {"kid": kid or self.registration.get_kid()}
        return Registration.encode_and_sign(claims, private_pem or self.private_pem, headers)

    def authorize(self, query: dict[str, str]) -> tuple[int, str]:
        """(status, page) of the OIDC authorization request `query` from the tool."""
        problems = [f"{name} must be {want!r}" for name, want in (
            ("scope", "openid"), ("response_type", "id_token"), ("response_mode", "form_post"),
            ("client_id", CLIENT_ID), ("redirect_uri", self.registration.get_launch_url()))
            if query.get(name) != want]
        if not query.get("nonce") or not query.get("state"):
            problems.append("nonce and state are required")
        if not any(m["user_id"] == query.get("login_hint") for m in self.members):
            problems.append("login_hint names no member of the course")
        if problems:
            return 400, "; ".join(problems)
        token = self.id_token(query["login_hint"], query["nonce"])
        fields = "".join(f'<input type="hidden" name="{n}" value="{html.escape(v)}">'
                         for n, v in (("id_token", token), ("state", query["state"])))
        return 200, (f'<form method="post" action="{html.escape(query["redirect_uri"])}">'
                     f"{fields}</form>")

    # the services
    def scores_of(self, number: int) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.scores.get(number, []))

    def results_of(self, number: int) -> dict[str, dict[str, Any]]:
        """{user id: the latest score posted} of line item `number`."""
        return {s["userId"]: s for s in self.scores_of(number)}

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self.answer(*platform.respond("GET", self.path, b"", self.headers))

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                self.answer(*platform.respond("POST", self.path, self.rfile.read(length),
                                              self.headers))

            def answer(self, status: int, body: Any, media_type: str = "application/json"
                       ) -> None:
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(status)
                self.send_header("Content-Type", media_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def respond(self, method: str, target: str, data: bytes, headers: Any
                ) -> tuple[int, Any, str] | tuple[int, Any]:
        path, query = urlsplit(target).path, {k: v[0] for k, v in
                                              parse_qs(urlsplit(target).query).items()}
        answer = self.route(method, path, query, data, headers)
        self.requests.append((method, path, answer[0]))
        return answer

    def route(self, method: str, path: str, query: dict[str, str], data: bytes, headers: Any
              ) -> tuple[int, Any, str] | tuple[int, Any]:
        with self.lock:
            for failure in self.failures:
                if failure[0] == method and re.fullmatch(failure[1], path):
                    self.failures.remove(failure)
                    return failure[2], {"error": "the access token is not accepted"
                                        if failure[2] == 401 else "unavailable, try again"}
        if (method, path) == ("GET", "/jwks"):
            return 200, {"keys": self.registration.get_jwks()}
        if (method, path) == ("GET", "/auth"):
            status, page = self.authorize(query)
            return status, page, "text/html" if status == 200 else "text/plain"
        if (method, path) == ("POST", "/token"):
            form = {k: v[0] for k, v in parse_qs(data.decode()).items()}
            try:
                with self.lock:
                    granted = self.security.get_access_token(form)
                claims = jwt.decode(form["client_assertion"], options={"verify_signature": False})
            except Exception as error:  # noqa: BLE001 (any refusal of the assertion)
                return 401, {"error": "invalid_client", "error_description": str(error)}
            wrong = [f"{name} must be {want!r}" for name, want in (
                ("iss", CLIENT_ID), ("sub", CLIENT_ID), ("aud", self.settings["auth_token_url"]))
                if claims.get(name) != want] + ([] if claims.get("jti") else ["jti is required"])
            if wrong:
                return 401, {"error": "invalid_client", "error_description": "; ".join(wrong)}
            return 200, granted
        match = re.fullmatch(r"/course/(memberships|lineitems)(?:/(\d+)(?:/(results|scores))?)?",
                             path)
        if not match:
            return 404, {"error": f"no {path}"}
        service, number, part = match.group(1), match.group(2), match.group(3)
        scope = SCOPES[part or ("memberships" if service == "memberships" else "lineitem")]
        token = (headers.get("Authorization") or "").removeprefix("Bearer ")
        try:
            allowed = self.security.validate_token(token, allowed_scopes=[scope])
        except Exception:  # noqa: BLE001 (a token that is missing, expired or not ours)
            allowed = False
        if not allowed:
            return 401, {"error": "the access token is missing, expired or lacks " + scope}
        with self.lock:
            return self.service(method, service, int(number) if number else None, part, query,
                                json.loads(data or b"null"))

    def service(self, method: str, service: str, number: int | None, part: str | None,
                query: dict[str, str], body: Any) -> tuple[int, Any]:
        base = self.settings["lineitems_url"]
        if service == "memberships":
            members = [{k: v for k, v in m.items() if k != "custom"} for m in self.members
                       if "role" not in query or query["role"] in m["roles"]]
            return 200, {"id": self.settings["memberships_url"],
                         "context": {"id": "course-1", "title": "The course"},
                         "members": members}
        if number is None and method == "GET":
            return 200, [dict(item, id=f"{base}/{n}") for n, item in self.line_items.items()
                         if all(item.get(k) == query[q] for q, k in
                                (("resource_id", "resourceId"), ("tag", "tag")) if q in query)]
        if number is None and method == "POST":
            if not body or "label" not in body or not body.get("scoreMaximum"):
                return 400, {"error": "a line item needs a label and a scoreMaximum"}
            new = next(self.numbers)
            self.line_items[new] = {k: body[k] for k in ("label", "scoreMaximum", "resourceId",
                                                         "tag") if k in body}
            return 201, dict(self.line_items[new], id=f"{base}/{new}")
        if number not in self.line_items:
            return 404, {"error": f"no line item {number}"}
        if part == "scores" and method == "POST":
            return self.record_score(number, body)
        if part == "results" and method == "GET":
            item = self.line_items[number]
            return 200, [{"id": f"{base}/{number}/results/{s['userId']}", "userId": s["userId"],
                          "resultScore": s["scoreGiven"], "resultMaximum": item["scoreMaximum"],
                          "comment": s.get("comment", "")}
                         for s in {s["userId"]: s for s in self.scores.get(number, [])}.values()]
        if part is None and method == "GET":
            return 200, dict(self.line_items[number], id=f"{base}/{number}")
        return 405, {"error": f"{method} is not allowed here"}

    def record_score(self, number: int, body: Any) -> tuple[int, Any]:
        needed = ("userId", "scoreGiven", "scoreMaximum", "activityProgress", "gradingProgress",
                  "timestamp")
        missing = [k for k in needed if not isinstance(body, dict) or k not in body]
        if missing:
            return 400, {"error": "a score needs " + ", ".join(missing)}
        if not any(m["user_id"] == body["userId"] for m in self.members):
            return 422, {"error": f"user {body['userId']} is not a member of the course"}
        score = dict(body, scoreGiven=float(body["scoreGiven"])
                     + self.wrongly.get(body["userId"], 0.0))
        self.scores.setdefault(number, []).append(score)
        return 200, {"resultUrl": f"{self.settings['lineitems_url']}/{number}/results"}


def auth_form_fields(page: str) -> dict[str, str]:
    """{name: value} of the hidden fields of the platform's auto-posted launch form."""
    return {name: html.unescape(value) for name, value in
            re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)}
