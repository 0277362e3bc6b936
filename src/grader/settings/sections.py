"""The grader's settings that are not the sandbox's, each on the configurable of what reads it.

As nbgrader keeps each setting on the class that uses it (``c.CourseDirectory.root``,
``c.Execute.timeout``), these are set as ``c.ClassName.name = value`` in
nbgrader_config.py and read once, in `settings.load` (`DaskCluster` by the one command
that makes the certificates):

- `Reports`: where the grade reports go (``c.Reports.directory``).
- `SimilarityReport`: which pairs the similarity report lists, and which code is
  too common to count (``c.SimilarityReport.threshold``, ``.common_fraction``).
- `StudentVariants`: the salt of each student's own model (``c.StudentVariants.salt``).
- `GradebookWriter`: how long a run waits for a gradebook that stopped answering
  (``c.GradebookWriter.retry_seconds``).
- `DaskCluster`: the names the certificates of the course's Dask cluster carry
  (``c.DaskCluster.authority_name``, ``.certificate_name``; make dask-certs).
- `TermRetention`: how long the students' files are kept after a term is archived
  (``c.TermRetention.grace_days``; make archive-term).
- `TermCarryOver`: what of the course folder next term's course is made of
  (``c.TermCarryOver.carried``; make new-term).
- `GradingPage`: who grades whom on the staff's grading page (``c.GradingPage.graders``,
  ``.split``, ``.grader_sections``, ``.previous_assignment``, ``.strict``, ``.instructors``,
  ``.seed``).
- `AiPolicy`: the course's AI policy for each assignment and whether its students declare
  the AI they used (``c.AiPolicy.policies``, ``.declaration``; docs/instructor.md), read by
  the release's cells (plugins/ai_policy.py), the feedback page and the site's homework
  page; `ai_policy_problems` is check-config's check of it against the course's assignments.

The first four were settings of `SandboxGrader` before; the old names still work
(renamed.py).
"""

from collections.abc import Iterable, Mapping

from traitlets import Bool, Dict, Enum, Float, Int, List, TraitError, Unicode, validate
from traitlets.config import Configurable


class Reports(Configurable):
    """Where the grade reports go: summary.txt, the report page, grades.csv, the LMS exports,
    the similarity reports."""

    directory = Unicode("", help="where grade reports go (default: reports/ beside the "
                        "submitted/ folder)").tag(config=True)


class SimilarityReport(Configurable):
    """What `make similarity` lists (reports/similarity-<assignment>.csv and .html)."""

    threshold = Float(0.6, min=0.0, max=1.0,
                      help="the similarity (0 to 1) at which the similarity report lists a "
                      "pair of students (make similarity)").tag(config=True)
    common_fraction = Float(0.2, min=0.0, max=1.0,
                            help="code that more than this share of the class wrote alike is "
                            "no evidence of copying").tag(config=True)


class StudentVariants(Configurable):
    """Each student's own model (the course package makes it, as this course's
    gptcourse.variants does), derived from the student id and a salt."""

    salt = Unicode("", help="the salt of each student's own model, written into the "
                   "notebooks as COURSE_SALT: change it each term, then make release"
                   ).tag(config=True)


class GradebookWriter(Configurable):
    """How a run records into the gradebook when the database stops answering."""

    retry_seconds = Float(120.0, min=0.0,
                          help="how long a run waits for a gradebook database that stopped "
                          "answering, trying again, before it stops grading (the same "
                          "command then grades the students not recorded)").tag(config=True)


class DaskCluster(Configurable):
    """The names the certificates of `make dask-certs` carry (dask_tls.py)."""

    authority_name = Unicode("grader Dask authority",
                             help="the common name of the Dask cluster's own certificate "
                             "authority (make dask-certs)").tag(config=True)
    certificate_name = Unicode("grader Dask cluster",
                               help="the common name of the certificate the Dask scheduler, "
                               "its workers and the grader present (make dask-certs)"
                               ).tag(config=True)


class TermRetention(Configurable):
    """How long a finished term's students' files stay after `make archive-term`."""

    grace_days = Int(180, min=0, help="days after both the term's archive was written and its "
                     "last due date (extensions included) before make archive-term PURGE=1 "
                     "CONFIRM=yes may remove the students' work and what shows it (the "
                     "grades and the item analysis stay)").tag(config=True)


# the course's own content at the top of this course's folder, besides its notebooks
# (c.CourseDirectory.source_directory, release_directory), rubrics/ and nbgrader_config.py
CARRIED = ["Makefile", "pyproject.toml", "requirements*.txt", "requirements*.lock", "*.md",
           "LICENSE*", ".gitignore", ".gitattributes", "_config.yml", "_toc.yml", ".github",
           ".ci", "book", "src", "docs", "tests", "testsupport", "benchmarks", "deploy"]


class TermCarryOver(Configurable):
    """What `make new-term` carries into next term's course: an allow-list of the course's
    own content; the rest of the folder (the term's data and records) stays behind."""

    carried = List(Unicode(), default_value=CARRIED, help="the names (or shell patterns) at "
                   "the top of the course folder that make new-term copies into next term's "
                   "course, a folder with what is in it, besides nbgrader_config.py, the "
                   "notebooks and rubrics/, which it always copies; nothing else is carried "
                   "(no run-time data, released-solutions record, extensions, regrade "
                   "requests)").tag(config=True)


SPLITS = ("section", "random", "previous")  # how the grading page shares the students out


def _listed_twice(names: list[str]) -> list[str]:
    return sorted({name for name in names if names.count(name) > 1})


class GradingPage(Configurable):
    """Who grades whom on the staff's grading page: the graders, how the students are shared
    among them (kept once made: a change here places only students not yet placed), and who
    may score or move whom. A setting that contradicts another is said by `problems`."""

    graders = List(Unicode(), help="the user names of the staff who grade the explain answers; "
                   "empty: the hub's instructors group").tag(config=True)
    split = Enum(SPLITS, default_value="random", help="how the students are shared among the "
                 "graders: 'section' (by the roster's section, through grader_sections), "
                 "'random' (seeded, balanced) or 'previous' (each with the grader they had "
                 "for previous_assignment)").tag(config=True)
    grader_sections = Dict(key_trait=Unicode(), value_trait=List(Unicode()),
                           help="for split = 'section': each grader's sections of the roster, "
                           "{'ta1': ['A', 'B']}; a section may have several graders"
                           ).tag(config=True)
    previous_assignment = Unicode("", help="for split = 'previous': the assignment whose "
                                  "graders the students keep").tag(config=True)
    strict = Bool(True, help="a grader may score only their own students (an instructor "
                  "listed in instructors may score anyone)").tag(config=True)
    instructors = List(Unicode(), help="the user names who may move students from one grader "
                       "to another; empty: every grader").tag(config=True)
    seed = Unicode("", help="the seed of the random split; empty: one is chosen and kept in "
                   "the assignment's record, course-data/grading-page/").tag(config=True)

    @validate("graders", "instructors")
    def _names_once(self, proposal: dict) -> list[str]:
        names = list(proposal["value"])
        if any(not name.strip() for name in names):
            raise TraitError("a user name is blank")
        twice = _listed_twice(names)
        if twice:
            raise TraitError(f"{', '.join(twice)} listed twice")
        return names

    @validate("grader_sections")
    def _sections_held(self, proposal: dict) -> dict[str, list[str]]:
        sections = dict(proposal["value"])
        empty = sorted(grader for grader, held in sections.items() if not held)
        if empty:
            raise TraitError(f"{', '.join(empty)} holds no section (give a section or leave "
                             f"the grader out)")
        twice = sorted(grader for grader, held in sections.items() if _listed_twice(held))
        if twice:
            raise TraitError(f"{', '.join(twice)} lists a section twice")
        return sections

    def problems(self) -> list[str]:
        """What of these settings contradicts another, one sentence each (none: [])."""
        found = []
        strangers = sorted(set(self.grader_sections) - set(self.graders))
        if self.graders and strangers:
            found.append(f"c.GradingPage.grader_sections names {', '.join(strangers)}, not in "
                         f"c.GradingPage.graders")
        if self.split == "section" and not self.grader_sections:
            found.append("c.GradingPage.split is 'section' but c.GradingPage.grader_sections "
                         "gives no grader a section")
        if self.split == "previous" and not self.previous_assignment:
            found.append("c.GradingPage.split is 'previous' but "
                         "c.GradingPage.previous_assignment names no assignment")
        return found


MAX_POLICY_CHARS = 2_000  # a policy is a few sentences a student reads above their work
POLICY_GRADE_ID = "ai_policy"  # the locked cell of the policy in each released notebook
DECLARATION_GRADE_ID = "ai_declaration"  # the cell in which a student declares their AI use
DECLARATION_PROMPT = ("**Your AI declaration** (not graded; the course staff read it beside "
                      "your answers). Say here which AI tools you used for this assignment "
                      "and how, or that you used none:")


class AiPolicy(Configurable):
    """The course's AI policy, per assignment: a locked cell near the top of each of the
    assignment's released notebooks, a section of the site's homework page and of each
    feedback page; with `declaration`, a cell after it where the student says which AI they
    used, never graded, which the staff read beside the answer."""

    policies = Dict(value_trait=Unicode(), key_trait=Unicode(), default_value={},
                    help="each assignment's AI policy, {assignment: text} (markdown, at most "
                    "2,000 characters); an assignment not named, or named with empty text, has "
                    "none and shows none anywhere; make release writes it into the notebooks"
                    ).tag(config=True)
    declaration = Bool(False, help="whether the notebooks of an assignment with a policy carry "
                       "a cell, after the policy, where each student declares the AI they used "
                       "(never graded)").tag(config=True)

    def policy_of(self, assignment: str) -> str:
        """The policy of `assignment`, stripped; "" when it has none."""
        return self.policies.get(assignment, "").strip()


def ai_policy_problems(policies: Mapping[str, str], assignments: Iterable[str]) -> list[str]:
    """One line for each policy of c.AiPolicy.policies that check-config refuses: one given to
    an assignment the course does not have (a misspelt name would leave the real assignment
    without its policy), or longer than `MAX_POLICY_CHARS`."""
    known = sorted(assignments)
    problems = [f"c.AiPolicy.policies names {name!r}, which is not an assignment of this "
                f"course (the assignments: {', '.join(known) or 'none'}); its policy would "
                "show nowhere" for name in sorted(policies) if name not in known]
    problems += [f"c.AiPolicy.policies[{name!r}] is {len(text.strip()):,} characters long; at "
                 f"most {MAX_POLICY_CHARS:,} (a few sentences students read above their work: "
                 "link to a longer page from it)"
                 for name, text in sorted(policies.items()) if len(text.strip()) > MAX_POLICY_CHARS]
    return problems
