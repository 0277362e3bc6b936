"""students.html, the bundle's short page for students: how to install the course package,
where the homework is (and the solutions released so far). One self-contained page:
its style inline, nothing loaded from elsewhere, every link relative to the bundle."""

from html import escape

from ..settings.course_wheel import PACKAGES_FOLDER, CourseWheel

STYLE = """body{font:1rem/1.55 system-ui,sans-serif;max-width:46rem;margin:2rem auto;
padding:0 1rem;color:#1a1a1a;background:#fff}code,pre{font-family:ui-monospace,monospace}
pre{background:#f3f3f3;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
a{color:#0b57d0}h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem}"""


def link_list(links: dict[str, str]) -> str:
    """An HTML list of links, {text: relative address}."""
    items = "".join(f'<li><a href="{escape(href)}">{escape(text)}</a></li>'
                    for text, href in links.items())
    return f"<ul>{items}</ul>"


def students_page(title: str, wheel: CourseWheel, requirement: str | None,
                  homework: dict[str, list[str]], solutions: dict[str, list[str]]) -> str:
    """The page. `homework` and `solutions`: {assignment: the notebooks' paths in the bundle}."""
    wheel_path = f"{PACKAGES_FOLDER}/{wheel.filename}"
    if requirement:
        install = (
            "<p>Each homework notebook installs it itself: its first code cell does, where the "
            "package is missing (Colab, your laptop), then the rest of the notebook runs. To "
            "install it yourself, in a notebook cell:</p>"
            f"<pre><code>%pip install \"{escape(requirement)}\"</code></pre>"
            "<p>or in a terminal, in the Python environment you work in:</p>"
            f"<pre><code>python -m pip install \"{escape(requirement)}\"</code></pre>"
            "<p>pip checks that the file it downloads is this one, by its SHA-256, and "
            "refuses any other. The package needs PyTorch; on a laptop without a GPU, "
            "PyTorch's CPU build is the smaller download: "
            "<code>python -m pip install torch --index-url "
            "https://download.pytorch.org/whl/cpu</code>, first.</p>")
    else:
        install = ("<p>This site gives no install line yet: ask your instructor for it. On the "
                   "course's JupyterHub, the package is installed already.</p>")
    assignments = "".join(
        f"<h3>{escape(name)}</h3>" + link_list({path.rsplit('/', 1)[-1]: path for path in paths})
        for name, paths in sorted(homework.items()))
    released = "".join(
        f"<h3>{escape(name)}</h3>" + link_list({path.rsplit('/', 1)[-1]: path for path in paths})
        for name, paths in sorted(solutions.items()))
    solutions_part = (
        "<h2>Solutions</h2><p>The solutions of an assignment appear here once every "
        "student's due date for it has passed. They show the solution code, without the "
        "checks that run only at grading time.</p>"
        + (released or "<p>None yet.</p>"))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}: for students</title>
<style>{STYLE}</style>
</head>
<body>
<main>
<h1>{escape(title)}: for students</h1>
<p><a href="index.html">Read the course site</a>: each chapter asks you to predict a number
before it shows it.</p>
<h2>The course package, {escape(wheel.name)} {escape(wheel.version)}</h2>
{install}
<p>The file itself: <a href="{escape(wheel_path)}">{escape(wheel.filename)}</a>,
SHA-256 <code>{wheel.sha256}</code>.</p>
<h2>The homework</h2>
<p>On the course's JupyterHub, open the <em>Assignments</em> tab and fetch the assignment
there. Anywhere else, download the notebook below, open it in Jupyter or upload it to Colab
(<em>File → Upload notebook</em>), run its first code cell, and hand it in as your
instructor says.</p>
{assignments}
{solutions_part}
</main>
</body>
</html>
"""
