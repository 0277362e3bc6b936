"""Several courses on this hub, from courses.yaml (docs/several-courses.md).

Load it after the hub's own configuration, e.g. at the end of jupyterhub_config.py:

    load_subconfig("/etc/gptcourse-hub/jupyterhub_courses.py")

It adds each course's grading service and page, the two groups of each course, the
role that lets each course's members open its page, and the scopes of each student's
server's own token: the pages of the student's own courses, which the hand-in panel in
that server (grader.student_server) calls. No course's page reaches a student's server.
The list is courses.yaml beside this file.
"""

import inspect
import os
import sys

import yaml

c = get_config()  # noqa: F821 (JupyterHub defines get_config when it loads this file)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hub_courses import hub_settings, server_token_scopes  # noqa: E402 (beside this file)

with open(os.path.join(HERE, "courses.yaml"), encoding="utf-8") as handle:
    listed = yaml.safe_load(handle) or {}
courses = listed.get("courses", [])
settings = hub_settings(courses,
                        python=listed.get("python", "/opt/gptcourse/.venv/bin/python"))


def already(name, empty):
    """What the configuration loaded before this file set for c.JupyterHub.<name>."""
    return c.JupyterHub[name] if name in c.JupyterHub else empty


c.JupyterHub.services = list(already("services", [])) + settings["services"]
c.JupyterHub.load_groups = {**already("load_groups", {}), **settings["load_groups"]}
c.JupyterHub.load_roles = list(already("load_roles", [])) + settings["load_roles"]
# Adding a course restarts the hub (docs/several-courses.md): the proxy and the students'
# servers keep running while it stops and starts again.
c.JupyterHub.cleanup_servers = False
c.JupyterHub.cleanup_proxy = False

earlier_scopes = (c.Spawner.server_token_scopes if "server_token_scopes" in c.Spawner
                  else None)


async def course_token_scopes(spawner):
    """A student's server's own token (JUPYTERHUB_API_TOKEN): what was set before this
    file (a list, or a callable as JupyterHub takes one), else the hub's defaults for a
    server, with the student's groups and the pages of the student's courses."""
    given = earlier_scopes
    if callable(given):
        given = given(spawner)
        if inspect.isawaitable(given):
            given = await given
    groups = [group.name for group in spawner.user.groups]
    return server_token_scopes(groups, courses, given)


c.Spawner.server_token_scopes = course_token_scopes
