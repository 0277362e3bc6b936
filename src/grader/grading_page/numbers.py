"""The numbers a student wrote in an answer, and whether one is a given value as people write it.

A number is read as written: digits grouped by commas (``124,412,160``) or by spaces
(``124 412 160``; one thin or no-break space, or at least two plain ones, so that "12 768"
in a sentence stays two numbers), a decimal part, an exponent (``1.6e8``), a sign, and a
unit of thousands, millions or billions (``2.5k``, ``124.4M``, ``163 million``, ``0.12B``,
``1.2bn``). A lower-case ``m`` alone is not a million (it may be metres or a typo); it is
when it spells "million". Digits inside a word or an id (``gpt2``, ``s01``, ``h1``) are no
number.
"""

import math
import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation

_UNITS = {"k": 3, "thousand": 3, "m": 6, "million": 6, "b": 9, "bn": 9, "billion": 9}
_THIN = "\u2009\u202f\u00a0"  # thin, narrow no-break and no-break spaces, as typesetters group
# At most six groups of three digits after the first (a quintillion): a bounded repetition
# keeps the reading of a long run of digit groups in one pass, not one pass per group.
_NUMBER = re.compile(
    r"(?<![\w.])"  # not inside a word, an id or a decimal part
    r"(?P<sign>[-\u2212])?"
    r"(?P<digits>"
    r"\d{1,3}(?:,\d{3}){1,6}(?!,?\d)"  # 124,412,160
    rf"|\d{{1,3}}(?:[{_THIN}]\d{{3}}){{1,6}}(?![{_THIN}]?\d)"  # 124 412 160, thin spaces
    r"|\d{1,3}(?: \d{3}){2,6}(?! ?\d)"  # 124 412 160: two plain-spaced groups or more
    r"|\d+"
    r")"
    r"(?P<decimals>\.\d+)?"
    r"(?:[eE](?P<exponent>[-+]?\d+))?"
    r"(?:(?P<letter>[kKMB]|bn)|\s?(?P<word>thousand|million|billion))?"
    r"(?![\w])"  # 124Mb, 3rd, 2x: not a number as this reader means it
)


@dataclass(frozen=True)
class WrittenNumber:
    """One number of an answer: its text as written, where it stands (``text[start:end]``),
    its value, and the place of its last written digit (``precision``: 1e5 for ``124.4M``,
    1 for ``124,412,160``, 0.001 for ``-0.360``)."""

    text: str
    start: int
    end: int
    value: float
    precision: float

    @property
    def significant_digits(self) -> int:
        """How many digits the number was written to, from its first non-zero one (4 for
        ``124.4M``, 9 for ``124,412,160``); 0 for a zero."""
        if self.value == 0:
            return 0
        leading = Decimal(repr(abs(self.value))).adjusted()
        return leading - Decimal(repr(self.precision)).adjusted() + 1


def _read(match: re.Match) -> WrittenNumber | None:
    digits = re.sub(rf"[, {_THIN}]", "", match["digits"])
    decimals = match["decimals"] or ""
    unit = (match["word"] or match["letter"] or "").lower()
    shift = _UNITS.get(unit, 0) + int(match["exponent"] or 0)
    try:
        exact = Decimal(digits + decimals).scaleb(shift)
    except InvalidOperation:  # an exponent too large to mean anything
        return None
    places = len(decimals) - 1 if decimals else 0
    precision = float(Decimal(1).scaleb(shift - places))
    value = float(-exact if match["sign"] else exact)
    if precision == 0 or not math.isfinite(precision) or not math.isfinite(value):
        return None  # 1e999, 1e-999: beyond what a float holds, no count of anything
    return WrittenNumber(match.group(0), match.start(), match.end(), value, precision)


def written_numbers(text: str) -> list[WrittenNumber]:
    """Every number written in `text`, in the order they appear (each of ``[50257, 768]``
    on its own)."""
    found = (_read(match) for match in _NUMBER.finditer(text))
    return [number for number in found if number is not None]


def _exact(value: float | int) -> Decimal:
    return Decimal(value) if isinstance(value, int) else Decimal(repr(float(value)))


def same_number(written: WrittenNumber, value: float | int) -> bool:
    """Whether `written` is `value` as people write it: `value` rounded (half up) or cut to
    the place of the written number's last digit equals it. 124,412,160 is ``124.4M``,
    ``124M``, ``124.41 million`` and ``124,412,160``, not ``124.5M`` nor ``125M``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return False
    step = _exact(written.precision)
    places = _exact(value) / step
    target = _exact(written.value) / step
    return target in (places.to_integral_value(ROUND_HALF_UP),
                      places.to_integral_value(ROUND_DOWN))
