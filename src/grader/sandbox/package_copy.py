"""The course package as the sandbox sees it: a copy with the answers' functions stubbed."""

import ast
import os
import shutil
from pathlib import Path

from ..files import tagged_folder
from .command import package_location


def sandboxed_package(package: str, blocked: tuple[str, ...], root: str | None = None) -> str:
    """A copy of the course package in which the functions in `blocked` are stubs.

    The functions an assignment asks students to write (and those that would
    compute their answers) raise "write your own" in the sandbox: their real
    code is not in the copy at all, so no alias, wrapper, reload or copy of a
    code object brings it back. Everything else is the package unchanged.
    Returns the copy's folder (made once per set of names and process).
    """
    package = Path(package_location(package))
    key = (str(package), tuple(sorted(blocked)), root)
    if key in _PACKAGE_COPIES and os.path.isdir(_PACKAGE_COPIES[key]):
        return _PACKAGE_COPIES[key]
    target = os.path.join(tagged_folder("package", root), package.name)
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for path in Path(target).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        stubbed = _stub_functions(text, set(blocked), package.name)
        if stubbed != text:
            path.write_text(stubbed, encoding="utf-8")
    os.chmod(os.path.dirname(target), 0o755)
    for directory, _, names in os.walk(target):
        os.chmod(directory, 0o755)
        for name in names:
            os.chmod(os.path.join(directory, name), 0o644)
    _PACKAGE_COPIES[key] = target
    return target


_PACKAGE_COPIES = {}


def _stub_functions(text, blocked, package_name):
    """`text` with every top-level function named in `blocked` replaced by a stub."""
    tree = ast.parse(text)
    changed = False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in blocked:
            message = (f"{package_name}.{node.name} is not available while your homework is "
                       f"graded: write your own {node.name}")
            # not NotImplementedError, which a check may read as "not answered yet"
            node.body = [ast.Raise(exc=ast.Call(func=ast.Name("RuntimeError", ast.Load()),
                                                args=[ast.Constant(message)], keywords=[]),
                                   cause=None)]
            node.decorator_list = []
            changed = True
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n" if changed else text
