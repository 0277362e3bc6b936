"""The hub's LTI 1.3 login (deploy/jupyterhub_lti13.py): jupyterhub-ltiauthenticator's, with
what it leaves out for a course.

jupyterhub-ltiauthenticator checks a launch's id_token (signature, issuer, audience,
expiry, nonce, state) and takes the hub's user name from the claim ``username_key``
names. `CourseLti13Authenticator` adds three refusals, each a page saying why and
nobody logged in:

- a launch from a deployment the course's registration does not list
  (``deployment_ids``: another course on the same platform that added the tool);
- a launch without that claim: the authenticator would log the browser in under the
  platform's ``sub`` instead, which may be another hub user's name;
- a launch that would make one hub user of two platform identities: each hub user name
  is bound at its first launch to the platform's (iss, sub) that made it, in
  ``identities_file``, and a launch of another identity under a bound name, or of a
  bound identity under another name, is refused. An administrator who means to move a
  name to another platform user removes its line from the file.
"""

import json
import os
import tempfile
from typing import Any

from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.constants import LTI13_CUSTOM_CLAIM
from ltiauthenticator.lti13.error import LoginError
from traitlets import Set, Unicode

DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
CUSTOM_PREFIX = "custom_"  # a username_key that names a custom field of the launch


def claimed_name(token: dict[str, Any], key: str) -> str:
    """The value of the claim `key` (``custom_NAME``: the custom field NAME) of the id_token
    `token`; LoginError when the launch does not carry it, never the sub in its place."""
    claims, name = token, key or "sub"
    if name.startswith(CUSTOM_PREFIX):
        claims, name = token.get(LTI13_CUSTOM_CLAIM), name[len(CUSTOM_PREFIX):]
    value = claims.get(name) if isinstance(claims, dict) else None
    if not isinstance(value, str) or not value.strip():
        what = "custom field" if claims is not token else "claim"
        raise LoginError(f"the launch carries no {name} (the {what} the hub's user name is "
                         f"taken from); nobody is logged in: the platform's tool must send it "
                         f"for every user")
    return value.strip()


class CourseLti13Authenticator(LTI13Authenticator):
    """jupyterhub-ltiauthenticator's LTI 1.3 login, for the course's deployments only, under
    the configured claim only, one platform identity per hub user."""

    deployment_ids = Set(Unicode(), help="the deployment ids of the course's tool (its "
                         "c.LtiTool.deployment_ids); a launch from any other is refused"
                         ).tag(config=True)
    identities_file = Unicode("jupyterhub_lti_identities.json", help="where each hub user "
                              "name's platform identity (iss, sub) is kept, from its first "
                              "launch on (relative: to the hub's working folder)"
                              ).tag(config=True)

    async def authenticate(self, handler: Any, data: dict[str, Any] | None = None
                           ) -> dict[str, Any]:
        token = data or {}
        deployment = str(token.get(DEPLOYMENT_CLAIM) or "")
        if deployment not in self.deployment_ids:
            raise LoginError(f"the launch comes from deployment {deployment or '(none)'!r} of "
                             f"the platform, which is not this course's; nobody is logged in")
        name = self.normalize_username(claimed_name(token, self.username_key))
        if not self.validate_username(name):
            raise LoginError(f"the launch's user name {name!r} is not one the hub accepts; "
                             f"nobody is logged in")
        self.bind(str(token.get("iss") or ""), str(token.get("sub") or ""), name)
        return {"name": name, "auth_state": token}

    def bound(self) -> list[dict[str, str]]:
        """The bindings kept so far: [{"issuer", "subject", "user"}]."""
        try:
            with open(self.identities_file, encoding="utf-8") as handle:
                return list(json.load(handle)["identities"])
        except FileNotFoundError:
            return []
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise LoginError(f"the hub's record of LTI identities ({self.identities_file}) "
                             f"cannot be read ({error}); nobody is logged in until an "
                             f"administrator mends it") from None

    def bind(self, issuer: str, subject: str, name: str) -> None:
        """Keep (issuer, subject) -> `name` at a name's first launch; LoginError when `name`
        is another identity's or the identity is another name's."""
        if not subject:
            raise LoginError("the launch names no platform user (no sub); nobody is logged in")
        kept = self.bound()
        for entry in kept:
            same_identity = (entry.get("issuer"), entry.get("subject")) == (issuer, subject)
            if same_identity and entry.get("user") == name:
                return
            if same_identity:
                raise LoginError(f"this platform user logs in to the hub as "
                                 f"{entry.get('user')!r}, not {name!r}; nobody is logged in "
                                 f"(the platform's user name for them changed: an "
                                 f"administrator of the hub can move them)")
            if entry.get("user") == name:
                raise LoginError(f"the hub user {name!r} belongs to another user of the "
                                 f"platform; nobody is logged in (two platform users give "
                                 f"the same user name: correct it on the platform)")
        kept.append({"issuer": issuer, "subject": subject, "user": name})
        folder = os.path.dirname(os.path.abspath(self.identities_file))
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False,
                                         prefix=".lti-identities-") as handle:
            try:
                os.chmod(handle.name, 0o600)
                json.dump({"identities": kept}, handle, indent=1)
            except BaseException:
                os.unlink(handle.name)
                raise
        os.replace(handle.name, self.identities_file)
        self.log.info("LTI identity %s of %s bound to hub user %s", subject, issuer, name)
