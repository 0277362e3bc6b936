"""Several courses (or terms) on one JupyterHub, from one list (docs/several-courses.md).

A course is a course folder and two hub groups: ``<name>-students`` and
``<name>-instructors``. `hub_settings` turns the list of courses (courses.yaml) into
what the hub loads at its start:

- ``services``: per course, its grading service (``grader-<name>``, listening on
  nothing, as the course folder's own account) and its page (``grading-<name>``,
  ``/services/grading-<name>/`` on the hub, on its own port of 127.0.0.1);
- ``load_groups``: the two groups of each course with their members (a student in two
  courses is in both courses' groups);
- ``load_roles``: per course, the role of its members, who may open that course's page
  and no other course's (``access:services!service=grading-<name>``), and whose servers
  may find it (``read:services!service=grading-<name>``).

A course's page holds no role and no scope: it reaches into no student's server (the
course over HTTP goes from each student's own server to the page, docs/hub-over-http.md)
and learns who asks, and that person's groups, from the hub's answer about the asker's
own token. Every scope of a course's roles names that course's groups or service only.
`server_token_scopes` says what a student's server's own token holds: the hub's
defaults for a server, the student's own groups, and the pages of the student's own
courses.
"""

import re

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$")  # a group, service and path part
# what the hub gives a server's token unless told otherwise (JupyterHub's `server` role)
SERVER_SCOPES = ("users:activity!user", "access:servers!server")


def groups_of(name):
    return f"{name}-students", f"{name}-instructors"


def checked(courses):
    """The courses as given, each name and port checked; ValueError saying which is wrong."""
    names, ports = set(), set()
    for number, course in enumerate(courses, 1):
        name = str(course.get("name", ""))
        if not NAME.match(name):
            raise ValueError(f"course {number}: name {name!r} is not lower-case letters, "
                             f"digits and '-' (it names hub groups, services and a URL)")
        if name in names:
            raise ValueError(f"course {number}: {name} is listed twice")
        port = course.get("page_port")
        if not isinstance(port, int) or not 1024 <= port <= 65535 or port in ports:
            raise ValueError(f"course {name}: page_port {port!r} is not a free port number "
                             f"above 1023 of its own")
        if not str(course.get("folder", "")).startswith("/"):
            raise ValueError(f"course {name}: folder {course.get('folder')!r} is not an "
                             f"absolute path")
        names.add(name)
        ports.add(port)
    return courses


def hub_settings(courses, python="/opt/gptcourse/.venv/bin/python", workers=2):
    """{"services": [...], "load_groups": {...}, "load_roles": [...]} for the courses."""
    services, groups, roles = [], {}, []
    for course in checked(courses):
        name, folder, port = course["name"], course["folder"], course["page_port"]
        students, instructors = groups_of(name)
        groups[students] = {"users": sorted(course.get("students", []))}
        groups[instructors] = {"users": sorted(course.get("instructors", []))}
        environment = {"PATH": f"{python.rsplit('/', 1)[0]}:/usr/bin:/bin"}
        services.append({
            "name": f"grader-{name}",
            "command": [python, "-m", "grader", "serve", "--workers", str(workers),
                        "--course", folder],
            "cwd": folder, "user": course.get("account", "grader"),
            "environment": environment,
        })
        services.append({
            "name": f"grading-{name}",
            "url": f"http://127.0.0.1:{port}",
            "command": [python, "-m", "grader", "page", "--port", str(port),
                        "--instructors", instructors, "--course", folder],
            "cwd": folder, "user": course.get("account", "grader"),
            "environment": environment,
            "oauth_no_confirm": True, "display": True,
        })
        roles.append({
            "name": f"{name}-members",
            "description": f"the students and instructors of {name} open its page; their "
                           "servers find it and hand in to it",
            "scopes": page_scopes(name),
            "groups": [students, instructors],
        })
    return {"services": services, "load_groups": groups, "load_roles": roles}


def page_scopes(name):
    """Opening the course's page (and calling its API), and finding where it listens."""
    return [f"access:services!service=grading-{name}", f"read:services!service=grading-{name}"]


def server_token_scopes(user_groups, courses, given=None):
    """The scopes a student's server's own token (its JUPYTERHUB_API_TOKEN) asks the hub
    for: `given` (what was set before, else the hub's defaults for a server), the owner's
    own groups, and for each course whose students' group holds the owner, that course's
    page, which the hand-in panel (grader.student_server) finds and calls with this
    token. The hub grants only what the owner holds, so asking for more would not get it."""
    scopes = list(given or SERVER_SCOPES) + ["read:users:groups!user"]
    for course in courses:
        if groups_of(course["name"])[0] in user_groups:
            scopes += page_scopes(course["name"])
    return list(dict.fromkeys(scopes))
