# The course page over HTTP (docs/hub-over-http.md): add these lines to
# jupyterhub_config.py after deploy/jupyterhub_service.py's, and set
# c.HubTransport.transport = "http" in the course's nbgrader_config.py. No exchange and
# no home folder is shared: the page reaches each student's own server through the
# hub's proxy with its own token, and runs as an account that reads no student's files.
STUDENTS_GROUP = "gptcourse-students"  # the course's two hub groups
INSTRUCTORS_GROUP = "gptcourse-instructors"

for service in c.JupyterHub.services:  # noqa: F821 (c is JupyterHub's config object)
    if service["name"] == "grading":
        service["user"] = "grader"  # the course's own account, not root: it opens no home

c.JupyterHub.load_groups = {  # noqa: F821 (the hub's groups; an LMS login may fill them)
    STUDENTS_GROUP: {"users": []},
    INSTRUCTORS_GROUP: {"users": []},
}
c.JupyterHub.load_roles = [  # noqa: F821
    {"name": "user", "scopes": ["self", "access:services!service=grading"]},
    # the page may reach the servers of the course's students, and nothing else
    {"name": "gptcourse-grading", "services": ["grading"],
     "scopes": [f"access:servers!group={STUDENTS_GROUP}"]},
]


def course_access(spawner):
    """A server of the course's students lets the page's scope in: a Jupyter server
    checks the scopes of a token as they are written, without resolving a group."""
    if STUDENTS_GROUP in [group.name for group in spawner.user.groups]:
        spawner.oauth_access_scopes = [*spawner.oauth_access_scopes,
                                       f"access:servers!group={STUDENTS_GROUP}"]


c.Spawner.pre_spawn_hook = course_access  # noqa: F821
