"""What check-config says of c.GradingPage: settings that contradict one another, and, for
the split by section, the roster's sections no grader holds."""

import os
from collections import Counter

from ..reports.roster import parse_roster, roster_path
from ..safe_text import shown_id
from ..settings import GradingPage, Settings


def grading_page_check_lines(settings: Settings) -> list[str]:
    """What is wrong in c.GradingPage, where nbgrader_config.py sets any of it."""
    if GradingPage.__name__ not in settings.config:
        return []
    page = GradingPage(config=settings.config)
    lines = [f"nbgrader_config.py: {problem}" for problem in page.problems()]
    roster = roster_path(settings)
    if page.split == "section" and page.grader_sections and os.path.isfile(roster):
        held = {section for grader, sections in page.grader_sections.items()
                if not page.graders or grader in page.graders for section in sections}
        unheld = Counter(person.section for person in parse_roster(roster)
                         if person.section not in held)
        if unheld:
            shown = ", ".join(f"{shown_id(section) if section else 'no section'} ({count} "
                              f"student{'s' if count > 1 else ''})"
                              for section, count in sorted(unheld.items(), key=_named_first))
            lines.append(f"nbgrader_config.py: c.GradingPage.grader_sections: no grader holds "
                         f"these sections of the roster ({os.path.relpath(roster, settings.root)}"
                         f"), so their students would have no grader: {shown}")
    return lines


def _named_first(entry: tuple[str, int]) -> tuple[bool, str]:
    """The sections in name order, the students with no section last."""
    return (not entry[0], entry[0])


# what check-config says of the course's c.GradingPage (recording/commands.py asks it)
GRADING_PAGE_CONFIG_CHECKS = (grading_page_check_lines,)
