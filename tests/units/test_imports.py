"""Is the grader still a house a newcomer can walk through: floors, no circles, one name each?

The map is in src/grader/__init__.py. Each wing (a subpackage) or module outside a
wing has a floor, derived from its imports: 0 when it imports nothing of ours outside
itself, else one above the highest it imports; so a new wing needs no table here. The
imports never go round in a circle, and the core never imports an add-on.
"""

import ast
import collections
import functools
import pathlib
import re

import grader

PACKAGE = pathlib.Path(grader.__file__).parent
# The core grades and records; the add-ons are course operations around it, which it
# never imports (at any level, inside functions too): they meet it at named seams (a
# command registration, the GradePush plugin class, the settings they read).
CORE = {"safe_text", "deadlines", "files", "results", "cells", "report_shell", "numerics",
        "student_server",
        "plugins", "settings", "sandbox", "plan", "checks", "worker", "recording", "engines",
        "autograde", "dask_tls"}
ADD_ONS = {"publish", "terms", "explain", "rubric", "rehearsal", "similarity", "lms", "lti",
           "push", "grading_page"}
# the rest may use both: the command line, the service, the reports, intake and handback
# (an LMS's files in and out), the regrade
BETWEEN = {"cli", "__main__", "service", "reports", "intake", "handback", "regrade"}
# run in a student's own Jupyter server, or inside the sandbox: import nothing of ours
ALONE = {"student_server"}
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


@functools.cache
def parsed(path):
    """The module at `path` parsed, once for all the tests of this file (they only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def own_imports(module):
    """[(imported module, names, line, at module level)] of grader modules that `module` imports."""
    path = MODULES[module]
    tree = parsed(path)
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


def units_below() -> dict[str, set[str]]:
    """{unit: the other units it imports} of every wing and module outside a wing (an
    import inside a function counts as much as one at the top of a module)."""
    below = {wing(m): set() for m in MODULES if wing(m)}
    for module in MODULES:
        for imported, _, _, _ in own_imports(module):
            if wing(module) and wing(imported) and wing(imported) != wing(module):
                below[wing(module)].add(wing(imported))
    return below


def unit_circles(below: dict[str, set[str]]) -> list[str]:
    """Each circle of imports between units, as "a -> b -> a"."""
    circles = []
    for start in below:
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for target in below.get(node, ()):
                if target == start:
                    circles.append(" -> ".join(path + [start]))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, path + [target]))
    return circles


def derived_floors(below: dict[str, set[str]]) -> dict[str, int]:
    """{unit: floor}: 0 for a unit that imports nothing of ours outside itself, else one above
    the highest floor it imports (the units' imports must go round in no circle)."""
    @functools.cache
    def floor(unit: str) -> int:
        return 1 + max((floor(lower) for lower in below[unit]), default=-1)

    return {unit: floor(unit) for unit in below}


def test_the_wings_import_one_another_in_no_circle():
    assert unit_circles(units_below()) == []


def test_a_circle_between_wings_is_found():
    assert unit_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        "a -> b -> c -> a", "b -> c -> a -> b", "c -> a -> b -> c"]


def test_floors_are_derived_from_the_imports():
    assert derived_floors({"top": {"middle", "ground"}, "middle": {"ground"}, "ground": set(),
                           "alone": set()}) == {"top": 2, "middle": 1, "ground": 0, "alone": 0}


MAP_FLOORS = re.compile(r"^- floor (\d+): (.+)$", re.M)  # the map's floors, in its docstring


def test_the_map_names_each_unit_on_its_derived_floor():
    """The docstring of src/grader/__init__.py lists the floors, each with its wings and
    modules (``- floor 3: checks, reports``); they are the floors the imports give."""
    mapped = {name.strip(): int(floor) for floor, names in MAP_FLOORS.findall(grader.__doc__)
              for name in names.rstrip(".").split(",")}
    assert mapped == derived_floors(units_below())


def test_every_unit_is_the_core_an_add_on_or_between():
    assert CORE | ADD_ONS | BETWEEN == set(units_below())
    assert not CORE & ADD_ONS and not CORE & BETWEEN and not ADD_ONS & BETWEEN


def core_imports_of_add_ons(imports: dict[str, list[tuple[str, int]]]) -> list[str]:
    """Each import of an add-on by a module of the core, of `imports` ({module: [(imported,
    line)]})."""
    return [f"{module}, line {line}: imports {imported}" for module, found in imports.items()
            for imported, line in found if wing(module) in CORE and wing(imported) in ADD_ONS]


def test_the_core_never_imports_an_add_on():
    imports = {m: [(i, line) for i, _, line, _ in own_imports(m)] for m in MODULES}
    assert core_imports_of_add_ons(imports) == []


def test_an_import_of_an_add_on_by_the_core_is_found_even_inside_a_function():
    planted = dict(ast_imports_of("grader.worker.planted", "def later():\n"
                                  "    from ..push import GradePush  # planted\n"
                                  "    from ..recording import Writer  # the core: fine\n"))
    assert core_imports_of_add_ons(planted) == [
        "grader.worker.planted, line 2: imports grader.push"]


def ast_imports_of(module: str, source: str) -> dict[str, list[tuple[str, int]]]:
    """{module: [(imported, line)]} of `source` read as the module `module`."""
    package = module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[:len(package.split(".")) - node.level + 1]
            found.append((".".join(base + [node.module]), node.lineno))
    return {module: found}


def test_what_runs_alone_imports_nothing_of_ours():
    assert {unit: below for unit, below in units_below().items() if unit in ALONE and below} == {}


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
        for node in ast.walk(parsed(MODULES[module])):
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
    """Each wing (or module outside a wing) is one floor of the chain."""
    floors = derived_floors(units_below())
    top = max(floors, key=floors.get)
    assert floors[top] + 1 <= MOST_FLOORS, top


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
        tree = parsed(path)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                defined[node.name].append(module)
    assert {name: modules for name, modules in defined.items() if len(modules) > 1} == {}


def test_the_public_functions_say_what_they_return():
    unannotated = []
    for module, path in MODULES.items():
        if is_inside(module):
            continue
        tree = parsed(path)
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
        tree = parsed(path)
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
