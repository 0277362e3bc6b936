"""The notebook a reader downloads: the page with the outputs of the build, its prose filled in.

A page is a MyST notebook whose prose names computed values (``{glue:text}`key:,d```)
and directives a plain Jupyter does not know (``{check}``, ``{dropdown}``, ...). The
download button offers this instead of the bare page: every code cell with the outputs
the site shows (from the build's jupyter-cache, where book/_ext/execute_pages.py and
the build stored them), and markdown that Jupyter renders:

- ``{glue:text}`` roles become their values, formatted as on the site;
- ``{glue:md}`` blocks become their Markdown, ``{glue:figure}`` blocks their image
  (a cell attachment) and caption;
- ``{check}`` and ``{dropdown}`` blocks become ``<details>`` (the answer behind
  "Show the answer", as on the site without JavaScript), admonitions a quote with
  their title, ``{objectives}`` a list under "After this page you can";
- ``{doc}`` and ``{ref}`` roles become their text.

Anything it cannot fill in stays as written, so the notebook is never wrong, at worst
plainer than the page.
"""

import base64
import json
import re
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from myst_nb.core.read import read_myst_markdown_notebook
from myst_nb.core.variables import format_plain_text
from myst_parser.config.main import MdParserConfig

MD_CONFIG = MdParserConfig(enable_extensions={"colon_fence", "dollarmath", "substitution"})
_GLUE_TEXT = re.compile(r"\{glue(?::text)?\}`([^`:]+)(?::([^`]*))?`")
_DOC = re.compile(r"\{doc\}`(?:([^`<]+?)\s*<[^`>]+>|([^`]+))`")
_REF = re.compile(r"\{ref\}`(?:([^`<]+?)\s*<[^`>]+>|([^`]+))`")
_FENCE_OPEN = re.compile(r"^(:{3,}|`{3,})\{([\w:-]+)\}\s*(.*)$")
_OPTION = re.compile(r"^:(\w[\w-]*):\s*(.*)$")
_IMAGE_TYPES = ("image/svg+xml", "image/png", "image/jpeg")


def executed_notebook(page, cache_path, glue_path, titles=None):
    """The notebook of ``page`` (a .md path), executed as the build ran it, as JSON text;
    None when the cache holds no run of its current code. ``titles`` maps the site's
    pages to their titles, for the ``{doc}`` roles."""
    notebook = read_myst_markdown_notebook(page.read_text(encoding="utf-8"), MD_CONFIG,
                                           path=page)
    try:
        _, notebook = get_cache(str(cache_path)).merge_match_into_notebook(notebook)
    except KeyError:
        return None
    glue = json.loads(glue_path.read_text(encoding="utf-8")) if glue_path.exists() else {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source, attachments = plain_markdown(cell.source, glue, titles or {})
            if attachments:
                cell.attachments = attachments
    return nbformat.writes(notebook)


def _shown(match):
    """A role's explicit text, or its target."""
    return (match.group(1) or match.group(2)).strip()


def fill_roles(text, glue, titles):
    """The text with its glue, doc and ref roles replaced by what the site shows."""
    def glued(match):
        key, fmt = match.group(1), match.group(2) or ""
        data = glue.get(key, {}).get("data", {})
        if "text/plain" not in data:
            return match.group(0)
        return format_plain_text(data["text/plain"], fmt)

    text = _GLUE_TEXT.sub(glued, text)
    def page(match):
        if match.group(1):
            return "*" + match.group(1).strip() + "*"
        return "*" + titles.get("book/" + match.group(2).strip(), match.group(2)) + "*"

    text = _DOC.sub(page, text)
    return _REF.sub(lambda m: "*" + _shown(m).replace("-", " ") + "*", text)


def _block(lines, start):
    """(name, argument, options, body lines, index after the block) of the fenced
    directive opening at ``lines[start]``."""
    opening = _FENCE_OPEN.match(lines[start])
    fence, name, argument = opening.group(1), opening.group(2), opening.group(3).strip()
    options, body, index = {}, [], start + 1
    while index < len(lines) and _OPTION.match(lines[index]):
        key, value = _OPTION.match(lines[index]).groups()
        options[key] = value
        index += 1
    while index < len(lines) and lines[index].rstrip() != fence:
        body.append(lines[index])
        index += 1
    return name, argument, options, body, index + 1


def plain_markdown(source, glue, titles):
    """(markdown Jupyter renders, cell attachments) for one markdown cell of a page."""
    lines, out, attachments, index = source.split("\n"), [], {}, 0
    while index < len(lines):
        if not _FENCE_OPEN.match(lines[index]):
            out.append(lines[index])
            index += 1
            continue
        name, argument, options, body, index = _block(lines, index)
        inner, more = plain_markdown("\n".join(body), glue, titles)
        attachments.update(more)
        out.extend(_directive(name, argument, options, inner, glue, attachments))
    return fill_roles("\n".join(out), glue, titles), attachments


def _directive(name, argument, options, inner, glue, attachments):
    """The markdown lines that stand for one directive."""
    if name in ("check", "dropdown"):
        summary = "Show the answer" if name == "check" else argument
        question = f"**{options['label']}**\n\n" if name == "check" and "label" in options else ""
        return [question + f"<details><summary>{summary}</summary>", "", inner, "",
                "</details>", ""]
    if name == "objectives":
        return ["**After this page you can**", "", inner, ""]
    if name in ("admonition", "note", "tip", "warning"):
        title = argument or name.capitalize()
        quoted = "\n".join("> " + line if line else ">" for line in inner.split("\n"))
        return [f"> **{title}**", ">", quoted, ""]
    if name == "glue:md":
        data = glue.get(argument, {}).get("data", {})
        return [data.get("text/markdown", ""), ""] if "text/markdown" in data else []
    if name == "glue:figure":
        data = glue.get(argument, {}).get("data", {})
        kind = next((t for t in _IMAGE_TYPES if t in data), None)
        if kind is None:
            return ["*" + inner.strip() + "*", ""]
        image = data[kind]
        if kind == "image/svg+xml" and not isinstance(image, str):
            image = "".join(image)
        if kind == "image/svg+xml":
            image = base64.b64encode(image.encode("utf-8")).decode("ascii")
        filename = f"{argument}.{kind.split('/')[1].split('+')[0]}"
        attachments[filename] = {kind: image}
        alt = options.get("alt", argument).replace("]", ")").replace("[", "(")
        return [f"![{alt}](attachment:{filename})", "", "*" + inner.strip() + "*", ""]
    return [f"**{argument}**" if argument else "", inner, ""]


def write_executed_notebook(app, pagename, target):
    """Write the executed notebook of ``pagename`` to ``target``; False when there is
    none (a page the cache does not hold)."""
    page = Path(app.srcdir) / f"{pagename}.md"
    build = Path(app.outdir).parent
    cache_path = Path(app.env.mystnb_config.execution_cache_path or build / ".jupyter_cache")
    glue_path = build / "jupyter_execute" / f"{pagename}.glue.json"
    if not page.exists():
        return False
    titles = {name: title.astext() for name, title in app.env.titles.items()}
    text = executed_notebook(page, cache_path, glue_path, titles)
    if text is None:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return True
