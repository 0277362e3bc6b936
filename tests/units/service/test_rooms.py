"""The service's rooms import one way: the page -> after-grading -> the queue, never back."""

import ast
import pathlib

import grader.service

SERVICE = pathlib.Path(grader.service.__file__).parent
# what each room may import of the service, besides its own modules
MAY_IMPORT = {"queue": set(), "after": {"queue"}}


def service_imports(path):
    """The rooms and top modules of the service that the module at `path` imports."""
    room = path.parent.name
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            package = ["service", room] if path.parent != SERVICE else ["service"]
            base = package[:len(package) - node.level + 1]
            target = base + (node.module.split(".") if node.module else [])
            if target[:1] == ["service"] and len(target) > 1:
                found.add(target[1])
            elif target == ["service"]:
                found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "grader.service."):
            found.add(node.module.split(".")[2])
    return found


def test_the_queue_imports_no_other_room_and_after_grading_only_the_queue():
    rooms = {room: sorted((SERVICE / room).glob("*.py")) for room in MAY_IMPORT}
    assert all(rooms.values())
    upward = [f"{path.relative_to(SERVICE)} imports {other}"
              for room, paths in rooms.items() for path in paths
              for other in sorted(service_imports(path) - {room} - MAY_IMPORT[room])]
    assert upward == []


def test_a_room_reaching_back_is_caught(tmp_path):
    """The check above sees an import of the page or of after-grading from the queue."""
    folder = tmp_path / "service" / "queue"
    folder.mkdir(parents=True)
    (folder / "x.py").write_text("from ..after.recorded import recorded_jobs\n"
                                 "from ..listing import queue_table\nfrom .store import Store\n")
    assert service_imports(folder / "x.py") == {"after", "listing", "queue"}
