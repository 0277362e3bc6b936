"""The ground floor: the course's settings and the errors that are the instructor's to fix.

Every setting of the grader is a trait of a traitlets `Configurable` (``c.ClassName.name
= value`` in nbgrader_config.py, as nbgrader's own), and one convention says where the
class lives: here, in settings/, whichever wing reads it. This floor is below every
wing that reads a setting, so `check_config` and the command line's help know every
setting without importing the wings above (a class defined in a wing was unknown to
them until that wing was imported), and a course's author finds them in one folder
(docs/another-course.md). The one exception is the house's own rule that every word
naming an LMS lives in lms/ (tests/units/lms/test_platforms.py): `CanvasPush`, whose
every setting names Canvas, is lms/canvas_settings.py's, beside the connection it is
read into. The class names are the config's names, so every ``c.X.y`` written before
works unchanged. `load` reads the settings every grading run needs into `Settings`; a
setting that one command reads (the LTI tool's, the service's) is read by it from
``Settings.config``.

- ``errors.py``: `CourseError` (the course set-up is wrong) and `SandboxError`
  (the sandbox cannot start on this machine).
- ``limits.py``: `SandboxGrader`, the sandbox's settings with their defaults (and the
  course package, ``c.SandboxGrader.course_package``), and `Limits`, the numbers one
  sandbox runs under, built in `limits_from_config`.
- ``sections.py``: the grader's other settings, each on the configurable of what
  reads it: `Reports` (where reports go), `SimilarityReport` (which pairs it
  lists), `StudentVariants` (the salt of each student's own model), `GradebookWriter`
  (how long a run waits for a gradebook that stopped answering), `DaskCluster` (the
  names of the Dask cluster's certificates), `TermRetention` (how long a finished term's
  students' files stay), `TermCarryOver` (what next term's course is made of),
  `GradingPage` (who grades whom on the staff's grading page), `AiPolicy` (each
  assignment's AI policy and whether students declare their AI use).
- ``service.py``: what the grading service shows students before their due date:
  `CheckFeedback` (each check's visibility) and `CheckRateLimit` (checks per window);
  `GradingService`, when it releases each student's feedback and looks for a new
  release; `ServicePage`, who sees every student on its page; `HubTransport`, the file
  exchange or the course page over HTTP.
- ``lti.py``: `LtiTool`, the course's LTI 1.3 registration on the platform.
- ``renamed.py``: their old names (``c.SandboxGrader.variant_salt``), still read,
  with a warning that says the new one.
- ``config_file.py``: nbgrader_config.py checked as nbgrader loads it.
- ``course.py``: `Settings` of one course, read through nbgrader's `CourseDirectory`.
- ``release_lines.py``: the lines `make release` writes into the instructor's
  notebooks (`write_release_lines`): the salt of each student's own model (checked
  there by `stale_salts`) and where the course package installs from off the hub
  (`no_install_line_warning` when no site is set).
- ``site.py``: `CourseSite`, where the course is published (``c.CourseSite.url``), and
  the course's own repository, never an address students are sent to.
- ``course_wheel.py``: the students' wheel of the course package, built so that two
  builds give the same bytes (its hash is in the install line).

`CONFIGURABLES` are every class of this folder's settings.

- ``command_line.py``: what every wing's commands share: `loaded_with_warnings`, the
  course of --course with its warnings said, and `settings_help`, the settings' help.
"""

from .command_line import (Command, lines_of_one_assignment, loaded_with_warnings,
                           settings_help)
from .config_file import check_config
from .course import POSTGRES_DRIVER, Settings, load, shown_url, with_postgres_driver
from .errors import CourseError, SandboxError
from .limits import Limits, SandboxGrader, limits_from_config
from .lti import LtiTool
from .release_lines import no_install_line_warning, stale_salts, write_release_lines
from .sections import (DECLARATION_GRADE_ID, DECLARATION_PROMPT, POLICY_GRADE_ID, SPLITS,
                       AiPolicy, DaskCluster, GradebookWriter, GradingPage, Reports,
                       SimilarityReport, StudentVariants, TermCarryOver, TermRetention,
                       ai_policy_problems)
from .service import CheckFeedback, CheckRateLimit, GradingService, HubTransport, ServicePage

# every class of the grader's own settings, as the command line's help lists them
CONFIGURABLES = (SandboxGrader, Reports, SimilarityReport, StudentVariants, GradebookWriter,
                 DaskCluster, CheckFeedback, CheckRateLimit, GradingService, ServicePage,
                 HubTransport, LtiTool, TermRetention, TermCarryOver, GradingPage, AiPolicy)

__all__ = ["CONFIGURABLES", "DECLARATION_GRADE_ID", "DECLARATION_PROMPT", "POLICY_GRADE_ID",
           "POSTGRES_DRIVER", "SPLITS", "AiPolicy", "CheckFeedback", "CheckRateLimit",
           "CourseError", "DaskCluster", "GradebookWriter", "GradingPage", "GradingService",
           "HubTransport",
           "Limits", "LtiTool", "Reports", "SandboxError", "SandboxGrader", "ServicePage",
           "Settings", "SimilarityReport", "StudentVariants", "TermCarryOver", "TermRetention",
           "Command", "ai_policy_problems", "check_config", "limits_from_config",
           "lines_of_one_assignment", "load",
           "loaded_with_warnings",
           "no_install_line_warning", "settings_help", "shown_url", "stale_salts",
           "with_postgres_driver", "write_release_lines"]
