"""What one collect of an LMS download did: `CollectOutcome`, counted, said in words last.

Collecting counts as it goes (students collected, replaced and kept, files
skipped by reason) and keeps the line of each thing it did; `report_lines`
turns the outcome into the text the command prints.
"""

from dataclasses import dataclass, field

from ..lms import Platform


@dataclass(frozen=True)
class CollectOutcome:
    """The counts of one collect of `zip_path` into `assignment`, and its lines."""

    assignment: str
    zip_path: str
    lms: Platform
    collected: int = 0  # students whose notebooks were put in submitted/
    replaced: int = 0  # of them, students whose earlier collect was moved to lms/replaced/
    kept: int = 0  # students who keep what was collected before
    not_notebooks: int = 0  # files skipped: not a notebook, or a copy macOS adds
    not_named: int = 0  # notebooks skipped: not named as the LMS names a submission
    not_on_roster: int = 0  # notebooks skipped: no single student of the roster
    not_of_assignment: int = 0  # notebooks skipped: not a notebook of the assignment
    older_attempts: int = 0  # notebooks skipped: a later attempt of the same was collected
    two_people: int = 0  # notebooks refused: two of the LMS's people match one student
    manifest: str = ""  # the manifest's path from the course folder; "" when none written
    other_lms: Platform | None = None  # the LMS the zip may be from, when none of its
    # notebooks is named as `lms` names submissions
    lines: list[str] = field(default_factory=list)  # each thing done, in order

    @property
    def skipped(self) -> int:
        """Files of the zip not collected, for every reason."""
        return (self.not_notebooks + self.not_named + self.not_on_roster
                + self.not_of_assignment + self.older_attempts + self.two_people)

    @property
    def refused(self) -> bool:
        """Whether something the instructor must settle kept a student's files out (the
        command then exits non-zero)."""
        return self.two_people > 0

    def report_lines(self) -> list[str]:
        """The outcome as the command prints it: each thing done, then the totals."""
        lines = list(self.lines)
        if self.other_lms is not None:
            lines.append(f"no notebook of the zip is named as {self.lms.title} names "
                         f"submissions: is it {self.other_lms.title}'s download "
                         f"(LMS={self.other_lms.name})?")
        lines.append(f"{self.assignment}: {self.collected} student(s) collected from "
                     f"{self.zip_path} ({self.replaced} replacing an earlier collect), "
                     f"{self.kept} kept as collected before, {self.skipped} file(s) skipped"
                     + (f"; the manifest: {self.manifest}" if self.manifest else ""))
        if self.two_people:
            lines.append(f"{self.assignment}: {self.two_people} file(s) refused: two people of "
                         f"{self.lms.title} match one student of the roster (the lines above "
                         f"name their ids and what to do)")
        return lines
