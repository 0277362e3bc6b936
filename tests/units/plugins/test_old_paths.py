"""The nbgrader plugins under their old dotted names: an nbgrader_config.py that names
grader.feedback.FeedbackPage (or grader.late, grader.nbgrader_guard) keeps working, and
make check-config says the new name."""

import importlib
import os

import pytest
from nbgrader.preprocessors import AssignLatePenalties
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from grader import plugins
from grader.plugins.feedback import TEMPLATES, TEMPLATE_NAME
from grader.settings import load

# importing an old module warns; said and tested once, below
pytestmark = pytest.mark.filterwarnings(
    r"ignore:grader\.(feedback|late|nbgrader_guard) is deprecated:DeprecationWarning")

OLD_PATHS = {  # the name an older nbgrader_config.py gives, the class it is now
    "grader.feedback.FeedbackPage": plugins.FeedbackPage,
    "grader.feedback.HideTestCode": plugins.HideTestCode,
    "grader.nbgrader_guard.SandboxedGradingOnly": plugins.SandboxedGradingOnly,
    "grader.late.PercentPerDay": plugins.PercentPerDay,
    "grader.late.LateDayBudget": plugins.LateDayBudget,
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_path_loads_the_same_class(old):
    assert import_item(old) is OLD_PATHS[old]
    assert OLD_PATHS[old].__module__.startswith("grader.plugins.")


@pytest.mark.parametrize("module", ["grader.feedback", "grader.late", "grader.nbgrader_guard"])
def test_an_old_module_says_it_is_deprecated(module):
    with pytest.deprecated_call(match=f"{module} is deprecated: name grader.plugins"):
        importlib.reload(importlib.import_module(module))


def test_nbgrader_builds_the_late_policy_an_old_path_names():
    config = Config()
    config.AssignLatePenalties.plugin_class = "grader.late.LateDayBudget"
    config.LateDayBudget.after = "grader.late.PercentPerDay"
    late = AssignLatePenalties(config=config)
    late.init_plugin()
    assert isinstance(late.plugin_inst, plugins.LateDayBudget)
    assert late.plugin_inst.after is plugins.PercentPerDay


def test_check_config_names_the_new_path(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        'c.GenerateFeedback.exporter_class = "grader.feedback.FeedbackPage"\n'
        'c.GenerateFeedback.preprocessors = ["nbgrader.preprocessors.GetGrades",\n'
        '                                    "grader.feedback.HideTestCode"]\n'
        'c.AssignLatePenalties.plugin_class = "grader.late.PercentPerDay"\n'
        "c.PercentPerDay.percent = 5\n")
    settings = load(str(tmp_path))
    where = f"{tmp_path}/nbgrader_config.py, line"
    assert settings.warnings == [
        f"{where} 2: warning: c.GenerateFeedback.exporter_class names "
        "grader.feedback.FeedbackPage, a deprecated path: name "
        "grader.plugins.feedback.FeedbackPage",
        f"{where} 3: warning: c.GenerateFeedback.preprocessors names "
        "grader.feedback.HideTestCode, a deprecated path: name "
        "grader.plugins.feedback.HideTestCode",
        f"{where} 5: warning: c.AssignLatePenalties.plugin_class names "
        "grader.late.PercentPerDay, a deprecated path: name grader.plugins.late.PercentPerDay"]
    assert settings.late_penalties().plugin_inst.percent == 5


def test_the_new_paths_are_named_without_a_warning(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        'c.GenerateFeedback.exporter_class = "grader.plugins.feedback.FeedbackPage"\n'
        'c.Autograde.exporter_class = "grader.plugins.nbgrader_guard.SandboxedGradingOnly"\n'
        'c.AssignLatePenalties.plugin_class = "grader.plugins.late.LateDayBudget"\n'
        'c.LateDayBudget.after = "grader.plugins.late.PercentPerDay"\n'
        "c.PercentPerDay.floor_percent = 50\n")
    assert load(str(tmp_path)).warnings == []


def test_the_feedback_template_is_found_where_the_package_data_puts_it():
    # src/grader/pyproject.toml ships grader/templates/*/*: the template stays beside the wings
    assert os.path.isfile(os.path.join(TEMPLATES, TEMPLATE_NAME, "index.html.j2"))
    assert os.path.dirname(TEMPLATES) == os.path.dirname(os.path.dirname(plugins.__file__))
