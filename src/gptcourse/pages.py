"""``glue`` and ``check`` for the course site's pages, with or without myst-nb.

When the site is built, myst-nb's ``glue`` stores a computed value under a name, and
the page's text shows it where it writes ``{glue:text}`name```. A page downloaded as a
notebook runs where only ``gptcourse`` is installed; there the text cannot show the
values, so this ``glue`` shows each one below its cell instead: a figure or a table
as itself, anything else as ``name: value``.

``use_figure_style`` draws the pages' figures as the site shows them: SVG, with type
large enough to read on a phone, on a white ground that holds in the dark theme.

``check`` glues the key of one of the page's checks (the site's ``{check}`` directive,
book/_ext/checks.py): the right answer and the typical wrong ones, each with what it
tells the reader, all computed by the page's own cells.
"""

import math

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


FIGURE_STYLE = {
    "font.size": 13, "axes.titlesize": 13, "axes.labelsize": 13, "legend.fontsize": 12,
    "xtick.labelsize": 12, "ytick.labelsize": 12,
    "axes.spines.top": False, "axes.spines.right": False,
    "figure.facecolor": "white", "savefig.facecolor": "white",
    "svg.fonttype": "path",  # letters as shapes: the same glyphs in every browser
    "savefig.dpi": 200,  # the few rasterised layers (a scatter of 50,257 dots)
}


def use_figure_style():
    """Figures as SVG in the site's style (a notebook without matplotlib_inline keeps PNG)."""
    import matplotlib.pyplot as plt

    plt.rcParams.update(FIGURE_STYLE)
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:
        return
    set_matplotlib_formats("svg")


def _plain(value):
    """A number, a shape or a choice as JSON holds it (tensors and numpy scalars included)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)) or type(value).__name__ == "Size":
        return [int(v) for v in value]
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


class Check:
    """What a check knows: its answer, how close counts as right, and the wrong answers it
    has feedback for. A shape is a list of ints; a choice is one of ``choices``."""

    def __init__(self, answer, *, mistakes=(), tolerance=0.0, relative=False, choices=None,
                 right=""):
        self.kind = "choice" if choices else "shape" if isinstance(answer, (list, tuple)) \
            or type(answer).__name__ == "Size" else "number"
        self.answer = _plain(answer)
        self.tolerance = float(tolerance)
        self.relative = bool(relative)
        self.right = right
        self.choices = list(choices or [])
        pairs = mistakes.items() if isinstance(mistakes, dict) else mistakes
        self.mistakes = [(_plain(value), text) for value, text in pairs]
        if self.kind == "choice" and self.answer not in self.choices:
            raise ValueError(f"the answer {self.answer!r} is not one of the choices {self.choices}")
        for value, _ in self.mistakes:
            if self.matches(value, self.answer):
                raise ValueError(f"the wrong answer {value!r} counts as the right one, "
                                 f"{self.answer!r}: a check would call it right")
            if self.kind == "choice" and value not in self.choices:
                raise ValueError(f"the wrong answer {value!r} is not one of the choices")

    def matches(self, given, expected):
        """Whether ``given`` counts as ``expected``: equal, or within the tolerance."""
        if self.kind != "number":
            return given == expected
        allowed = self.tolerance * (abs(expected) if self.relative else 1.0)
        return math.isclose(given, expected, rel_tol=1e-9, abs_tol=allowed + 1e-12)

    def as_dict(self):
        return {"kind": self.kind, "answer": self.answer, "tolerance": self.tolerance,
                "relative": self.relative, "right": self.right, "choices": self.choices,
                "mistakes": [{"value": value, "feedback": text}
                             for value, text in self.mistakes]}

    MIME_TYPE = "application/vnd.gptcourse.check+json"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {self.MIME_TYPE: self.as_dict(), "text/plain": repr(self)}

    def __repr__(self):
        return f"the answer is {self.answer!r}"


def check(name, answer, *, mistakes=(), tolerance=0.0, relative=False, choices=None, right=""):
    """Glue the key of the page's check ``name``: ``answer`` (a number, a shape, or one of
    ``choices``), ``mistakes`` ({wrong answer: what it tells the reader}), a number within
    ``tolerance`` of the answer counting as right (a fraction of it with ``relative``), and
    ``right``, said to a reader who got it. A wrong answer that would count as right is an
    error, so a page cannot build with a check that calls a mistake right."""
    glue(name, Check(answer, mistakes=mistakes, tolerance=tolerance, relative=relative,
                     choices=choices, right=right), display=False)


__all__ = ["Check", "FIGURE_STYLE", "check", "glue", "use_figure_style"]
