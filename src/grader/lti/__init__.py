"""The LTI 1.3 wing: the course as a tool of the LMS (the platform), its scores and roster.

- ``registration.py``: the platform's registration (c.LtiTool.issuer, client_id,
  deployment_ids, ...; the traits of `LtiTool`, settings/lms.py) checked into an
  `LtiRegistration`.
- ``keys.py``: the tool's RSA key pair in course-data/lti/ (`make_keys`, `read_keys`) and
  its public key set (JWKS).
- ``services.py``: `PlatformServices`, the platform's AGS and NRPS calls: access tokens by
  the client credentials grant with a signed assertion, 5xx retried, 401 a clear stop.
- ``ags.py``: the assignment's line item found (by resourceId, then tag) before one is
  made, the results read, one score posted.
- ``nrps.py``: the course's learners (`Member`).
- ``launch.py``: `ToolLaunch`, the OIDC login and the launch's id_token checked by pylti1p3.
- ``roster_sync.py``: the learners into the course's roster, nothing the instructor wrote lost;
  what became of each (`RosterChange`, its `RosterOutcome`).
- ``line_items.py``: the line item each assignment's scores went to and whose they were,
  so that one deleted on the platform is made again with every grade.
- ``ags_push.py``: `AgsGradePush`, the grade push of AGS (a `GradePush` of push/), and
  `lti_push`, one assignment's grades (as `make grades` exports them) into the
  platform's gradebook, or a dry run.
- ``hub_login.py``: `CourseLti13Authenticator`, the hub's LTI 1.3 login
  (deploy/jupyterhub_lti13.py): the course's deployments only, the user name's claim
  required, one platform identity per hub user. Imported by the hub, not here (it
  imports JupyterHub).
- ``commands.py``: lti-keys, lti-roster, lti-push and rehearse-lti, added to
  ``python -m grader`` by cli.py, and what check-config says of c.LtiTool.
"""

from ..settings import LtiTool
from .ags_push import AgsGradePush, lti_push, push_scores
from .keys import ToolKeys, make_keys, read_keys
from .launch import LaunchedUser, LaunchRefused, ToolLaunch
from .nrps import Member, learners
from .registration import LtiRegistration, LtiSetupError, registration_from
from .roster_sync import RosterChange, RosterOutcome, sync_roster
from .services import PlatformServices

__all__ = ["AgsGradePush", "LaunchRefused", "LaunchedUser", "LtiRegistration", "LtiSetupError",
           "LtiTool", "Member", "PlatformServices", "RosterChange", "RosterOutcome", "ToolKeys",
           "ToolLaunch", "learners", "lti_push", "make_keys", "push_scores", "read_keys",
           "registration_from", "sync_roster"]
