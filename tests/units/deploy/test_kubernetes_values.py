"""deploy/kubernetes/: the Zero to JupyterHub values and the course's own pod, read as YAML.
No volume is shared with the students, every role is scoped to the course's groups and
service, the page holds no scope on a student's server, each student's server runs the
hand-in panel and reaches the page through the hub's proxy, and the course's disk is
mounted by its own pod only."""

import importlib.util
import pathlib
import types

import yaml

KUBERNETES = pathlib.Path(__file__).resolve().parents[3] / "deploy" / "kubernetes"
COURSE = "gptcourse-2026-fall"


def values():
    return yaml.safe_load((KUBERNETES / "values.yaml").read_text())


def manifests():
    return list(yaml.safe_load_all((KUBERNETES / "grader.yaml").read_text()))


def test_the_students_servers_mount_their_own_disk_and_nothing_else():
    singleuser = values()["singleuser"]
    storage = singleuser["storage"]
    assert storage["type"] == "dynamic"  # one claim per student
    assert storage.get("extraVolumes", []) == [] and storage.get("extraVolumeMounts", []) == []
    assert "extraVolumes" not in singleuser and "extraVolumeMounts" not in singleuser
    assert singleuser["uid"] == 1000
    assert singleuser["networkPolicy"]["egressAllowRules"]["privateIPs"] is False


def test_the_course_page_is_a_hub_service_with_no_token_written_down():
    services = values()["hub"]["services"]
    assert list(services) == [f"grading-{COURSE}"]
    page = services[f"grading-{COURSE}"]
    assert page["url"] == f"http://grading-{COURSE}:10101"
    assert "apiToken" not in page and "api_token" not in page


def hub_courses():
    """deploy/hub_courses.py, the hub configuration of several courses on one machine."""
    spec = importlib.util.spec_from_file_location("hub_courses",
                                                  KUBERNETES.parent / "hub_courses.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_holds_no_role_and_no_role_holds_a_scope_on_a_server():
    roles = values()["hub"]["loadRoles"]
    assert [name for name, role in roles.items() if role.get("services")] == []
    on_servers = [scope for role in roles.values() for scope in role["scopes"]
                  if scope.split("!")[0] in ("access:servers", "read:servers", "servers",
                                             "admin:servers")]
    assert on_servers == []


def test_the_roles_are_scoped_to_the_courses_own_groups_and_service():
    hub = values()["hub"]
    groups = set(hub["config"]["JupyterHub"]["load_groups"])
    assert groups == {f"{COURSE}-students", f"{COURSE}-instructors"}
    roles = hub["loadRoles"]
    assert roles[f"{COURSE}-members"]["scopes"] == [f"access:services!service=grading-{COURSE}",
                                                    f"read:services!service=grading-{COURSE}"]
    assert roles[f"{COURSE}-members"]["groups"] == [f"{COURSE}-students",
                                                    f"{COURSE}-instructors"]
    for role in roles.values():
        for scope in role["scopes"]:
            _, _, target = scope.partition("!")
            kind, _, name = target.partition("=")
            assert (kind, name) in {("group", g) for g in groups} | {
                ("service", f"grading-{COURSE}")}, scope
        assert set(role) <= {"description", "scopes", "services", "groups"}  # no users


def test_the_courses_disk_is_mounted_by_its_own_pod_only_which_runs_unprivileged():
    claim, deployment, service = manifests()
    assert (claim["kind"], deployment["kind"], service["kind"]) == (
        "PersistentVolumeClaim", "Deployment", "Service")
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    pod = deployment["spec"]["template"]["spec"]
    assert [v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"]] == [
        claim["metadata"]["name"]]
    assert pod["securityContext"]["runAsUser"] not in (0, 1000)
    assert pod["securityContext"]["runAsNonRoot"] is True
    for container in pod["containers"]:
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
        assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
        assert "privileged" not in container["securityContext"]
    assert deployment["spec"]["replicas"] == 1
    assert service["spec"]["ports"][0]["port"] == 10101
    assert service["metadata"]["name"] == f"grading-{COURSE}"


def test_the_course_pods_commands_are_ones_the_grader_takes():
    from grader.cli import build_parser  # the grader's own command line

    _, deployment, _ = manifests()
    commands = {c["name"]: c["command"] for c in
                deployment["spec"]["template"]["spec"]["containers"]}
    page = build_parser().parse_args(commands["page"][3:])
    serve = build_parser().parse_args(commands["grader"][3:])
    assert (page.command, page.port, page.course) == ("page", 10101, "/srv/course")
    assert page.address == "0.0.0.0"  # the proxy reaches the pod over the cluster's network
    assert (serve.command, serve.scheduler, serve.course) == (
        "serve", "tls://grading-scheduler:8786", "/srv/course")
    assert commands["page"][:3] == ["python", "-m", "grader"]


def test_the_groups_and_roles_are_those_of_the_hub_of_several_courses():
    made = hub_courses().hub_settings([{"name": COURSE, "folder": "/srv/course",
                                        "page_port": 10101}])
    hub = values()["hub"]
    assert hub["loadRoles"] == {r["name"]: {k: v for k, v in r.items() if k != "name"}
                                for r in made["load_roles"]}
    assert set(hub["config"]["JupyterHub"]["load_groups"]) == set(made["load_groups"])


def test_a_students_server_token_names_the_page_of_their_course_as_on_one_machine():
    config = types.SimpleNamespace(KubeSpawner=types.SimpleNamespace())
    (snippet,) = values()["hub"]["extraConfig"].values()
    exec(compile(snippet, "values.yaml", "exec"), {"c": config})
    scopes = config.KubeSpawner.server_token_scopes
    assert not hasattr(config.KubeSpawner, "pre_spawn_hook")

    def spawner(*groups):
        user = types.SimpleNamespace(groups=[types.SimpleNamespace(name=g) for g in groups])
        return types.SimpleNamespace(user=user)

    page = [f"access:services!service=grading-{COURSE}", f"read:services!service=grading-{COURSE}"]
    student, instructor = f"{COURSE}-students", f"{COURSE}-instructors"
    assert scopes(spawner(student)) == ["users:activity!user", "access:servers!server",
                                        "read:users:groups!user", *page]
    assert scopes(spawner(instructor)) == ["users:activity!user", "access:servers!server",
                                           "read:users:groups!user"]
    # the same as the hub of several courses gives, for anyone's groups
    courses = [{"name": COURSE}, {"name": "other-2027-spring"}]
    for groups in ((student,), (instructor,), (student, "other-2027-spring-students"), ()):
        assert scopes(spawner(*groups)) == [
            s for s in hub_courses().server_token_scopes(groups, courses) if "other" not in s]


def test_each_students_server_runs_the_panel_and_finds_the_page_through_the_proxy():
    singleuser = values()["singleuser"]
    (panel,) = singleuser["extraFiles"].values()
    assert panel["mountPath"].startswith("/etc/jupyter/jupyter_server_config.d/")
    assert panel["mountPath"].endswith(".json")
    assert panel["data"] == {"ServerApp": {"jpserver_extensions": {
        "grader.student_server": True}}}
    # the chart's policy lets a student's pod reach the proxy, and no other pod
    assert singleuser["extraEnv"] == {"COURSE_GRADING_URL": "http://proxy-public"}
    assert singleuser["networkPolicy"]["egressAllowRules"] == {"privateIPs": False}
    assert "egress" not in singleuser["networkPolicy"]

