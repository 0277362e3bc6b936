"""Is the grader still a house a newcomer can walk through: floors, no circles, one name each?

The map is in src/grader/__init__.py. Each wing (a subpackage) or ground-floor
module has a floor; a module may import from its own wing or from a lower
floor, never from a higher one, and the imports never go round in a circle.
"""

import ast
import collections
import functools
import pathlib

import grader

PACKAGE = pathlib.Path(grader.__file__).parent
# the floor of each wing (a subpackage) and of each module outside a wing
FLOORS = {
    "safe_text": 0, "deadlines": 0, "files": 0, "results": 0, "cells": 0, "report_shell": 0, "numerics": 0,
    "student_server": 0,  # runs in a student's own Jupyter server: imports nothing of ours
    "plugins": 1, "lms": 1,
    "feedback": 2, "nbgrader_guard": 2, "late": 2,  # the plugins' old, deprecated paths
    "settings": 2,
    "sandbox": 3, "dask_tls": 3, "rubric": 3,
    "plan": 4,
    "checks": 5,
    "worker": 6,
    "recording": 7,
    "reports": 8,
    "similarity": 8,
    "engines": 9, "intake": 9,
    "service": 10,
    "handback": 10,
    "autograde": 10, "rehearsal": 10, "regrade": 10, "explain": 10,
    "push": 9,
    "publish": 9,
    "terms": 9,
    "lti": 10,
    "cli": 11,
    "__main__": 12,
}
INSIDE = "grader.sandbox.inside"  # runs inside the sandbox: imports nothing of ours
SHARED = INSIDE + ".shared"  # the one module of the inside the grader imports


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def in_the_package(path):
    """Whether every folder from `path` up to src/grader is a package (a wheel built in
    place leaves copies of the modules in build/, which is not)."""
    return all((folder / "__init__.py").is_file() for folder in path.parents
               if folder == PACKAGE or PACKAGE in folder.parents)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if in_the_package(p)}


def wing(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def own_imports(module):
    """[(imported module, names, line, at module level)] of grader modules that `module` imports."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != "grader" and not target.startswith("grader."):
                continue
            names = [alias.name for alias in node.names]
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
            for imported in submodules or [target]:
                found.append((imported, names, node.lineno, id(node) in top_level))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "grader" or alias.name.startswith("grader."):
                    found.append((alias.name, [], node.lineno, id(node) in top_level))
    return found


def test_every_module_has_a_floor():
    assert {wing(m) for m in MODULES if wing(m)} == set(FLOORS)


def test_imports_go_down_a_floor_or_stay_in_their_wing():
    upward = []
    for module in MODULES:
        for imported, _, line, _ in own_imports(module):
            if not wing(module) or wing(imported) == wing(module) or not wing(imported):
                continue
            if FLOORS[wing(imported)] >= FLOORS[wing(module)]:
                upward.append(f"{module}, line {line}: imports {imported}")
    assert upward == []


def test_the_imports_go_round_in_no_circle():
    graph = {m: {i for i, _, _, _ in own_imports(m) if i in MODULES and i != m} for m in MODULES}
    circles = []
    for start in graph:  # a path back to `start` is a circle
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for target in graph[node]:
                if target == start:
                    circles.append(" -> ".join(path + [start]))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, path + [target]))
    assert circles == []


def is_inside(module):
    return module == INSIDE or module.startswith(INSIDE + ".")


def test_the_inside_of_the_sandbox_imports_nothing_of_the_grader():
    beyond = []  # an absolute import of the grader, or a relative one out of the folder
    for module in filter(is_inside, MODULES):
        for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
                if node.level > 1:
                    beyond.append(f"{module}, line {node.lineno}: from {'.' * node.level}")
            else:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            beyond += [f"{module}, line {node.lineno}: {name}" for name in names
                       if name == "grader" or name.startswith("grader.")]
    assert beyond == []


def test_the_grader_imports_of_the_inside_only_the_shared_module():
    assert own_imports(SHARED) == []
    assert [f"{module}, line {line}: {imported}" for module in MODULES if not is_inside(module)
            for imported, _, line, _ in own_imports(module)
            if is_inside(imported) and imported != SHARED] == []


MOST_FLOORS = 8  # __main__ down to the ground floor, in the longest chain of imports


def test_the_longest_chain_of_imports_is_at_most_eight_floors():
    """Each wing (or module outside a wing) is one floor of the chain; an import inside a
    function counts as much as one at the top of a module."""
    below = collections.defaultdict(set)
    for module in MODULES:
        for imported, _, _, _ in own_imports(module):
            if wing(module) and wing(imported) and wing(imported) != wing(module):
                below[wing(module)].add(wing(imported))

    @functools.cache
    def chain(unit):
        return max(([unit] + chain(lower) for lower in below[unit]), key=len, default=[unit])

    longest = max((chain(unit) for unit in FLOORS), key=len)
    assert len(longest) <= MOST_FLOORS, " -> ".join(longest)



def test_an_import_inside_a_function_says_why():
    silent = []
    for module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for imported, _, line, top in own_imports(module):
            if not top and "#" not in lines[line - 1] and "#" not in lines[line - 2]:
                silent.append(f"{module}, line {line}: imports {imported}")
    assert silent == []


def test_no_module_imports_a_private_name_of_another():
    private = [f"{module}, line {line}: {name} from {imported}"
               for module in MODULES for imported, names, line, _ in own_imports(module)
               for name in names if name.startswith("_")]
    assert private == []


def test_no_two_classes_or_functions_of_the_grader_share_a_name():
    defined = collections.defaultdict(list)
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                defined[node.name].append(module)
    assert {name: modules for name, modules in defined.items() if len(modules) > 1} == {}


def test_the_public_functions_say_what_they_return():
    unannotated = []
    for module, path in MODULES.items():
        if is_inside(module):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            functions = [node] if isinstance(node, ast.FunctionDef) else [
                n for n in node.body if isinstance(n, ast.FunctionDef)
            ] if isinstance(node, ast.ClassDef) and not node.name.startswith("_") else []
            for function in functions:
                if not function.name.startswith("_") and function.returns is None:
                    unannotated.append(f"{module}.{function.name}")
    assert unannotated == []


MAX_OBJECT_PARAMETERS = 8  # parameters meant to take any value at all (a repr, a pickler's hook)


def _is_object(annotation):
    return (isinstance(annotation, ast.Name) and annotation.id == "object"
            or isinstance(annotation, ast.Constant) and annotation.value == "object")


def _annotated_functions():
    """(module, function node) of every function and method of the grader, nested ones too."""
    for module, path in MODULES.items():
        if is_inside(module):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield module, node


def test_no_function_says_it_returns_just_an_object():
    vague = [f"{module}, line {node.lineno}: {node.name}"
             for module, node in _annotated_functions() if _is_object(node.returns)]
    assert vague == [], "\n".join(vague)


def test_only_a_few_parameters_take_any_object():
    vague = []
    for module, node in _annotated_functions():
        arguments = node.args
        for argument in (arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                         + [a for a in (arguments.vararg, arguments.kwarg) if a]):
            if _is_object(argument.annotation):
                vague.append(f"{module}, line {node.lineno}: {node.name}({argument.arg})")
    assert len(vague) <= MAX_OBJECT_PARAMETERS, "\n".join(vague)
