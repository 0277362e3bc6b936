"""The course's LTI 1.3 registration, as traits of `LtiTool` (``c.LtiTool.issuer = ...``).

The values the platform shows when the tool is registered (Canvas: the developer
key; Moodle: the external tool's details; docs/lti.md), checked by the LTI wing
(lti/registration.py).
"""

from traitlets import Float, Integer, List, Unicode
from traitlets.config import Configurable


class LtiTool(Configurable):
    """The platform's registration of the course as an LTI 1.3 tool (docs/lti.md)."""

    issuer = Unicode("", help="the platform's issuer, the iss of its launches "
                     "(docs/lti.md gives each LMS's)").tag(config=True)
    client_id = Unicode("", help="the tool's client id on the platform (the id of "
                        "the tool's registration there)").tag(config=True)
    deployment_ids = List(Unicode(), help="the deployment ids the platform launches the "
                          "tool with").tag(config=True)
    auth_login_url = Unicode("", help="the platform's OIDC authorization endpoint"
                             ).tag(config=True)
    auth_token_url = Unicode("", help="the platform's OAuth2 token endpoint (for AGS and "
                             "NRPS)").tag(config=True)
    auth_audience = Unicode("", help="the aud of the tool's token requests, where it is "
                            "not auth_token_url").tag(config=True)
    key_set_url = Unicode("", help="the platform's public key set (JWKS)").tag(config=True)
    lineitems_url = Unicode("", help="the course's AGS line items service (the lineitems "
                            "of a launch's AGS claim)").tag(config=True)
    memberships_url = Unicode("", help="the course's NRPS service (the "
                              "context_memberships_url of a launch's NRPS claim)"
                              ).tag(config=True)
    launch_url = Unicode("", help="the tool's launch URL, where the platform posts the "
                         "id_token").tag(config=True)
    key_folder = Unicode("lti", help="the folder of the tool's key pair, under course-data/"
                         ).tag(config=True)
    retries = Integer(4, min=0, help="retries of a request the platform answers 5xx"
                      ).tag(config=True)
    backoff_seconds = Float(1.0, min=0.0, help="the first wait before a retry, doubled each "
                            "time").tag(config=True)
    timeout_seconds = Float(30.0, min=0.1, help="how long one request may take"
                            ).tag(config=True)
