"""The shell of the course team's HTML pages: the grade report, the item analysis, the
similarity report.

Each page is one self-contained file: its style is inline, it loads nothing from
anywhere, and it reads on a phone. A page gives its title (escaped here), its body
and, where it needs more, its own rules after the shared ones.
"""

import html

STYLE = """\
body {{ font-family: sans-serif; max-width: {width}; margin: 2em auto; padding: 0 1em;
        color: #222; background: #fff; line-height: 1.4; }}
table {{ border-collapse: collapse; }}
td, th {{ border-bottom: 1px solid #ccc; padding: 0.25em 0.8em; text-align: left; }}
td.n {{ text-align: right; }}
@media (max-width: 30em) {{ td, th {{ padding: 0.25em 0.4em; }} }}
a {{ color: #0b4f8a; }}
"""

SHELL = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{style}</style></head><body><main>
<h1>{title}</h1>
{body}
</main></body></html>
"""


def report_page(title: str, body: str, style: str = "", width: str = "60em") -> str:
    """A whole page: `title` (plain text) as its title and heading, then `body` (HTML),
    styled by the shared rules and then `style` (CSS); `width` is the text's widest."""
    return SHELL.format(title=html.escape(title), body=body,
                        style=STYLE.format(width=width) + style)
