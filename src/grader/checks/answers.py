"""What the instructor's cells name: the answers students define.

Found from the source alone (nothing is run): `answer_names` are the names the
solution cells bind at the top level (the names a test cell uses are read with
its other facts by checker.py's `TestCell`).
"""

import ast


def answer_names(instructor_cells: list[str]) -> set[str]:
    """Names bound at the top level of the instructor's solution cells (not inside functions)."""
    names = set()
    for source in instructor_cells:
        try:
            tree = ast.parse(without_magics(source))
        except SyntaxError:
            continue
        names |= _bound(tree.body)
    return names


def _bound(statements):
    names = set()
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        for child in ast.walk(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                if not isinstance(child, ast.Lambda):
                    names.add(child.name)
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
    # (an `import torch` in a solution cell is not an answer: the checker's own torch stays)
    return names


def without_magics(code: str) -> str:
    """`code` with IPython magics and shell escapes (%, !) replaced by `pass`, for exec."""
    lines = []
    for line in code.splitlines():
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass"
                     if stripped.startswith(("%", "!")) else line)
    return "\n".join(lines)
