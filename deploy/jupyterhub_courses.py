"""Several courses on this hub, from courses.yaml (docs/several-courses.md).

Load it after the hub's own configuration, e.g. at the end of jupyterhub_config.py:

    load_subconfig("/etc/gptcourse-hub/jupyterhub_courses.py")

It adds each course's grading service and page, the two groups of each course and
roles that give each course's page its own students' servers only. The list is
courses.yaml beside this file.
"""

import os
import sys

import yaml

c = get_config()  # noqa: F821 (JupyterHub defines get_config when it loads this file)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hub_courses import hub_settings, server_access_scopes  # noqa: E402 (beside this file)

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

earlier_hook = c.Spawner.pre_spawn_hook if "pre_spawn_hook" in c.Spawner else None


def course_access(spawner):
    """A student's server lets in the pages of the student's courses (over HTTP,
    docs/hub-over-http.md), after the hook set before this file, if any."""
    if earlier_hook is not None:
        earlier_hook(spawner)
    groups = [group.name for group in spawner.user.groups]
    spawner.oauth_access_scopes = [*spawner.oauth_access_scopes,
                                   *server_access_scopes(groups, courses)]


c.Spawner.pre_spawn_hook = course_access
