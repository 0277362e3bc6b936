"""Does deploy/jupyterhub_lti13.py give the hub's LTI 1.3 login the course's registration?"""

import pathlib

from traitlets.config import Config

DEPLOY = pathlib.Path(__file__).resolve().parents[3] / "deploy"


def test_the_hubs_lti_login_takes_the_courses_registration(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.LtiTool.issuer = 'https://canvas.instructure.com'\n"
        "c.LtiTool.client_id = '10000000000042'\n"
        "c.LtiTool.auth_login_url = 'https://sso.canvaslms.com/api/lti/authorize_redirect'\n"
        "c.LtiTool.key_set_url = 'https://sso.canvaslms.com/api/lti/security/jwks'\n")
    snippet = (DEPLOY / "jupyterhub_lti13.py").read_text()
    assert snippet.count('"/srv/course"') == 1
    config = Config()
    exec(snippet.replace('"/srv/course"', repr(str(tmp_path))), {"c": config})
    from ltiauthenticator.lti13.auth import LTI13Authenticator  # jupyterhub: imports slowly

    assert config.JupyterHub.authenticator_class == (
        "ltiauthenticator.lti13.auth.LTI13Authenticator")
    hub_login = LTI13Authenticator(config=config)
    assert (hub_login.issuer, hub_login.client_id, hub_login.authorize_url,
            hub_login.jwks_endpoint, hub_login.username_key) == (
        "https://canvas.instructure.com", {"10000000000042"},
        "https://sso.canvaslms.com/api/lti/authorize_redirect",
        "https://sso.canvaslms.com/api/lti/security/jwks", "custom_course_id")
    assert hub_login.login_url("/hub/") == "/hub/lti13/oauth_login"
