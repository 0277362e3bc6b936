# Students log into the course's hub from the LMS, by LTI 1.3 (docs/lti.md): add these
# lines to jupyterhub_config.py, with the course folder of your hub, in place of its
# c.JupyterHub.authenticator_class = "pam" (the hub runs from the course's .venv, which
# has jupyterhub-ltiauthenticator and the grader). The login is jupyterhub-ltiauthenticator's
# (grader/lti/hub_login.py): it serves the tool's login URL, /hub/lti13/oauth_login, and
# its launch URL, /hub/lti13/oauth_callback (register both with the platform), and checks
# each launch's id_token against the platform's key set; the course's authenticator also
# refuses a launch from another deployment (another course that added the tool), one
# without the user name's custom field, and a second platform user for one hub user
# (each hub user's platform identity is kept in jupyterhub_lti_identities.json, beside
# the hub's database). The platform's registration is read from the course's own
# c.LtiTool settings, so it is written once, in nbgrader_config.py.
#
# The hub's username must be the student's id in the course (their account on this
# machine, the roster's id). Give the tool a custom field that carries it, and name it
# here: in Canvas's developer key, Custom Fields "course_id=$Canvas.user.loginId"; in
# Moodle's tool, Custom parameters "course_id=$User.username".
from traitlets.config import PyFileConfigLoader

COURSE = "/srv/course"
TOOL = PyFileConfigLoader("nbgrader_config.py", path=COURSE).load_config().LtiTool

c.JupyterHub.authenticator_class = "grader.lti.hub_login.CourseLti13Authenticator"  # noqa: F821 (c is JupyterHub's config object)
c.CourseLti13Authenticator.deployment_ids = set(TOOL.get("deployment_ids", []))  # noqa: F821
c.LTI13Authenticator.issuer = TOOL.issuer  # noqa: F821
c.LTI13Authenticator.client_id = {TOOL.client_id}  # noqa: F821
c.LTI13Authenticator.authorize_url = TOOL.auth_login_url  # noqa: F821
c.LTI13Authenticator.jwks_endpoint = TOOL.key_set_url  # noqa: F821
c.LTI13Authenticator.username_key = "custom_course_id"  # noqa: F821
c.LTI13Authenticator.uri_scheme = "https"  # noqa: F821 (behind the HTTPS reverse proxy)
c.LTI13Authenticator.allow_all = True  # noqa: F821 (whoever the course's platform launches)
