"""Several courses on one hub from one list: deploy/jupyterhub_courses.py loaded as the hub
loads it, with a list of two courses. A student in both is in both courses' groups; the
roles of one course name nothing of the other; no course's page holds a scope on anyone's
server, and a student's server's token asks for the pages of the student's courses only."""

import asyncio
import pathlib
import shutil
import types

import pytest
import yaml
from traitlets.config import Config

DEPLOY = pathlib.Path(__file__).resolve().parents[3] / "deploy"
COURSES = {"python": "/opt/gptcourse/.venv/bin/python", "courses": [
    {"name": "ml-2026-fall", "folder": "/srv/courses/ml-2026-fall", "page_port": 10101,
     "students": ["alice", "carol"], "instructors": ["ines"]},
    {"name": "nlp-2026-fall", "folder": "/srv/courses/nlp-2026-fall", "page_port": 10102,
     "students": ["bob", "carol"], "instructors": ["nora"]},
]}


def hub_config(folder, courses=COURSES, before=None):
    """The hub's configuration after jupyterhub_courses.py, copied with `courses` beside it."""
    for name in ("jupyterhub_courses.py", "hub_courses.py"):
        shutil.copy(DEPLOY / name, folder / name)
    (folder / "courses.yaml").write_text(yaml.safe_dump(courses))
    config = Config() if before is None else before
    path = folder / "jupyterhub_courses.py"
    exec(compile(path.read_text(), str(path), "exec"),
         {"get_config": lambda: config, "__file__": str(path)})
    return config.JupyterHub


def test_every_course_has_its_two_groups_and_a_student_of_two_courses_is_in_both(tmp_path):
    hub = hub_config(tmp_path)
    assert hub.load_groups == {
        "ml-2026-fall-students": {"users": ["alice", "carol"]},
        "ml-2026-fall-instructors": {"users": ["ines"]},
        "nlp-2026-fall-students": {"users": ["bob", "carol"]},
        "nlp-2026-fall-instructors": {"users": ["nora"]},
    }
    carols = [g for g, members in hub.load_groups.items() if "carol" in members["users"]]
    assert carols == ["ml-2026-fall-students", "nlp-2026-fall-students"]


def test_no_courses_page_holds_a_role_nor_any_scope_on_a_server(tmp_path):
    hub = hub_config(tmp_path)
    pages = {s["name"] for s in hub.services if "url" in s}
    assert pages == {"grading-ml-2026-fall", "grading-nlp-2026-fall"}
    assert [r["name"] for r in hub.load_roles if pages & set(r.get("services", []))] == []
    on_servers = [scope for role in hub.load_roles for scope in role["scopes"]
                  if scope.split("!")[0] in ("access:servers", "read:servers", "servers",
                                             "admin:servers")]
    assert on_servers == []


def test_each_courses_members_open_its_page_and_their_servers_find_it(tmp_path):
    hub = hub_config(tmp_path)
    roles = {role["name"]: role for role in hub.load_roles}
    assert sorted(roles) == ["ml-2026-fall-members", "nlp-2026-fall-members"]
    assert roles["ml-2026-fall-members"] == {
        "name": "ml-2026-fall-members",
        "description": "the students and instructors of ml-2026-fall open its page; their "
                       "servers find it and hand in to it",
        "scopes": ["access:services!service=grading-ml-2026-fall",
                   "read:services!service=grading-ml-2026-fall"],
        "groups": ["ml-2026-fall-students", "ml-2026-fall-instructors"]}
    for course, other in (("ml", "nlp"), ("nlp", "ml")):
        for role in (r for name, r in roles.items() if name.startswith(course)):
            assert other not in repr(role), role
            # every scope is filtered to the course's own groups or service
            assert all("!group=" in s or "!service=" in s for s in role["scopes"]), role


def test_each_course_runs_its_service_and_page_on_its_own_folder_and_port(tmp_path):
    hub = hub_config(tmp_path)
    services = {s["name"]: s for s in hub.services}
    assert sorted(services) == ["grader-ml-2026-fall", "grader-nlp-2026-fall",
                                "grading-ml-2026-fall", "grading-nlp-2026-fall"]
    page = services["grading-nlp-2026-fall"]
    assert page["url"] == "http://127.0.0.1:10102"
    assert page["command"] == ["/opt/gptcourse/.venv/bin/python", "-m", "grader", "page",
                               "--port", "10102", "--instructors", "nlp-2026-fall-instructors",
                               "--course", "/srv/courses/nlp-2026-fall"]
    assert services["grader-ml-2026-fall"]["command"][3:] == [
        "serve", "--workers", "2", "--course", "/srv/courses/ml-2026-fall"]
    assert all(s["user"] == "grader" for s in services.values())


def test_what_the_hubs_own_configuration_set_before_is_kept(tmp_path):
    before = Config()
    before.JupyterHub.load_roles = [{"name": "user", "scopes": ["self"]}]
    before.JupyterHub.services = [{"name": "idle-culler", "command": ["cull"]}]
    hub = hub_config(tmp_path, before=before)
    assert hub.load_roles[0] == {"name": "user", "scopes": ["self"]}
    assert [s["name"] for s in hub.services][:1] == ["idle-culler"]
    assert len(hub.load_roles) == 3


@pytest.mark.parametrize("change, message", [
    ({"name": "ML 2026"}, "not lower-case letters"),
    ({"page_port": 10102}, "page_port 10102"),
    ({"folder": "courses/ml"}, "not an absolute path"),
    ({"name": "nlp-2026-fall"}, "listed twice"),
])
def test_a_wrong_entry_is_refused_saying_which(tmp_path, change, message):
    courses = {**COURSES, "courses": [{**COURSES["courses"][0], **change},
                                      COURSES["courses"][1]]}
    courses["courses"].reverse()  # the wrong one second, as a list grows
    with pytest.raises(ValueError, match=message):
        hub_config(tmp_path, courses)


def test_the_list_in_deploy_is_two_terms_of_this_course():
    listed = yaml.safe_load((DEPLOY / "courses.yaml").read_text())
    assert [c["name"] for c in listed["courses"]] == ["gptcourse-2026-fall",
                                                      "gptcourse-2027-spring"]


def test_a_restart_to_add_a_course_leaves_the_proxy_and_the_servers_running(tmp_path):
    hub = hub_config(tmp_path)
    assert (hub.cleanup_servers, hub.cleanup_proxy) == (False, False)


def spawner(*groups):
    """What JupyterHub hands Spawner.server_token_scopes: the spawner, with its user."""
    user = types.SimpleNamespace(groups=[types.SimpleNamespace(name=g) for g in groups])
    return types.SimpleNamespace(user=user)


def token_scopes(config, *groups):
    """The scopes a server's token asks for, as the hub calls the setting at a spawn."""
    return asyncio.run(config.Spawner.server_token_scopes(spawner(*groups)))


DEFAULTS = ["users:activity!user", "access:servers!server", "read:users:groups!user"]
ML = ["access:services!service=grading-ml-2026-fall",
      "read:services!service=grading-ml-2026-fall"]
NLP = ["access:services!service=grading-nlp-2026-fall",
       "read:services!service=grading-nlp-2026-fall"]


def test_a_students_server_token_asks_for_the_pages_of_their_own_courses_only(tmp_path):
    config = Config()
    hub_config(tmp_path, before=config)
    assert "pre_spawn_hook" not in config.Spawner  # no scope is let into a server any more
    assert token_scopes(config, "ml-2026-fall-students", "nlp-2026-fall-students") == (
        DEFAULTS + ML + NLP)
    assert token_scopes(config, "nlp-2026-fall-students") == DEFAULTS + NLP
    # an instructor hands nothing in: their server's token names no page
    assert token_scopes(config, "ml-2026-fall-instructors") == DEFAULTS
    assert token_scopes(config) == DEFAULTS


@pytest.mark.parametrize("kind", ["list", "function", "coroutine"])
def test_a_server_token_setting_made_before_is_kept_and_extended(tmp_path, kind):
    earlier = ["users:activity!user", "access:servers!server", "read:users:name!user"]
    seen = []

    def function(spawner):
        seen.append(spawner)
        return earlier

    async def coroutine(spawner):
        return function(spawner)

    config = Config()
    config.Spawner.server_token_scopes = {"list": earlier, "function": function,
                                          "coroutine": coroutine}[kind]
    hub_config(tmp_path, before=config)
    assert token_scopes(config, "ml-2026-fall-students") == (
        earlier + ["read:users:groups!user"] + ML)
    assert len(seen) == (0 if kind == "list" else 1)  # called with the spawner
