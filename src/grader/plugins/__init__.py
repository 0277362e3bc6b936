"""The ground floor's nbgrader plugins: the classes nbgrader_config.py names, which nbgrader
itself loads by their dotted names (``grader.plugins.feedback.FeedbackPage``).

- ``feedback.py``: the feedback a student reads, without the hidden tests:
  `HideTestCode` (c.GenerateFeedback.preprocessors) and `FeedbackPage`
  (c.GenerateFeedback.exporter_class), its template in the package's
  ``templates/feedback/``.
- ``ai_policy.py``: `AiPolicyCells` (the first of c.GenerateAssignment.preprocessors), which
  puts an assignment's AI policy (c.AiPolicy) into its released notebooks, a locked cell,
  and the declaration cell after it.
- ``nbgrader_guard.py``: `SandboxedGradingOnly` (c.Autograde.exporter_class),
  which refuses nbgrader's own autograde before it touches a file or a grade.
- ``late.py``: the late policies c.AssignLatePenalties.plugin_class may name
  (`PercentPerDay`, `LateDayBudget`), and what each student's late assignments
  are charged (`late_charges`), and how late one may still be handed in for points
  (`points_end`).

They import only the ground floor (``cells.py``, ``settings/``), so that loading them, as the
check of nbgrader_config.py does, lifts nothing above them. Their old paths
(``grader.feedback``, ``grader.late``, ``grader.nbgrader_guard``) are gone;
`make check-config` names the new one where nbgrader_config.py names an old one.
"""

from .ai_policy import AiPolicyCells
from .feedback import FeedbackPage, HideTestCode
from .late import (LateCharge, LateDayBudget, Lateness, PercentPerDay, late_charges,
                   points_end)
from .nbgrader_guard import SandboxedGradingOnly

__all__ = ["AiPolicyCells", "FeedbackPage", "HideTestCode", "LateCharge", "LateDayBudget",
           "Lateness", "PercentPerDay", "SandboxedGradingOnly", "late_charges", "points_end"]
