"""``glue`` for the course site's pages, with or without myst-nb.

When the site is built, myst-nb's ``glue`` stores a computed value under a name, and
the page's text shows it where it writes ``{glue:text}`name```. A page downloaded as a
notebook runs where only ``gptcourse`` is installed; there the text cannot show the
values, so this ``glue`` shows each one below its cell instead: a figure or a table
as itself, anything else as ``name: value``.
"""

try:
    from myst_nb import glue
except ImportError:  # outside the site's build
    def glue(name, variable, display=True):
        """Show ``variable`` under its ``name`` (the page's text refers to it by name)."""
        from IPython.display import display as show

        if hasattr(variable, "savefig") or hasattr(variable, "_repr_markdown_"):
            show(variable)
        else:
            print(f"{name}: {variable}")

__all__ = ["glue"]
