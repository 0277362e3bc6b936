# The course over HTTP (docs/hub-over-http.md): add these lines to jupyterhub_config.py
# after deploy/jupyterhub_service.py's, and set c.HubTransport.transport = "http" in the
# course's nbgrader_config.py. No exchange and no home folder is shared, and the page
# reaches into no student's server: each student's own server runs the hand-in panel
# (the server extension grader.student_server, /user/NAME/course-hand-in/grading/), which
# calls the page's API with that server's own token; the page acts for the token's owner.
#
# The students' servers need the panel: their image (or environment) installs the
# grader's distribution without its dependencies, since the panel needs only
# jupyter_server,
#     pip install --no-deps course-grader        # or: pip install --no-deps ./src/grader
# and enables it, as deploy/student/jupyter_server_config.json does
# ("grader.student_server": true; deploy/jupyterhub_config.py hands that folder to the
# students' servers as JUPYTER_CONFIG_PATH).
STUDENTS_GROUP = "gptcourse-students"  # the course's two hub groups
INSTRUCTORS_GROUP = "gptcourse-instructors"

for service in c.JupyterHub.services:  # noqa: F821 (c is JupyterHub's config object)
    if service["name"] == "grading":
        service["user"] = "grader"  # the course's own account, not root: it opens no home
    if service["name"] == "staff-grading":  # the staff are the hub's instructors group
        command = service["command"]
        command[command.index("--hub") + 1] = INSTRUCTORS_GROUP
# over HTTP the students' servers send their notebooks: no home is read, no helper as root
c.JupyterHub.services = [service for service in c.JupyterHub.services  # noqa: F821
                         if service["name"] != "home-reader"]

c.JupyterHub.load_groups = {  # noqa: F821 (the hub's groups; an LMS login may fill them)
    STUDENTS_GROUP: {"users": []},
    INSTRUCTORS_GROUP: {"users": []},
}
# Every user opens the page, and their server finds it (read:services) and hands in to it
# (access:services). The page holds no role: the hub tells it who asks, and their
# groups, from the asker's own token; it needs no scope of its own.
c.JupyterHub.load_roles = [  # noqa: F821
    {"name": "user", "scopes": ["self", "access:services!service=grading",
                                "read:services!service=grading"]},
    # the instructors alone open the staff's grading page, which reads their group
    {"name": "course-staff", "groups": [INSTRUCTORS_GROUP],
     "scopes": ["access:services!service=staff-grading"]},
    {"name": "staff-grading-page", "services": ["staff-grading"],
     "scopes": [f"read:groups!group={INSTRUCTORS_GROUP}"]},
]
# A server's own token (its JUPYTERHUB_API_TOKEN): the hub's defaults for a server, its
# owner's groups, and the page (the hub grants only what the owner holds).
c.Spawner.server_token_scopes = [  # noqa: F821
    "users:activity!user", "access:servers!server", "read:users:groups!user",
    "access:services!service=grading", "read:services!service=grading",
]
