"""The nbgrader plugins' old dotted names are gone: grader.feedback, grader.late and
grader.nbgrader_guard no longer load, make check-config says the new name of a class an
nbgrader_config.py still names by an old one, and nothing of the course names them."""

import os
import pathlib

import pytest
from importlib.machinery import PathFinder
from traitlets.config import Config

import grader
from grader import plugins
from grader.plugins.feedback import TEMPLATES, TEMPLATE_NAME
from grader.settings import CourseError, load

OLD_MODULES = ["grader.feedback", "grader.late", "grader.nbgrader_guard"]
ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("module", OLD_MODULES)
def test_an_old_module_is_gone_from_the_package(module):
    # looked up in the package's own folder, as a clean install imports it
    assert PathFinder.find_spec(module, grader.__path__) is None
    assert PathFinder.find_spec("grader.plugins." + module.rpartition(".")[2],
                                plugins.__path__) is not None


def test_nothing_of_the_course_names_an_old_path():
    """The course's own config, the deploy files, the docs, testsupport and the tests name the
    plugins by grader.plugins.*; only this file and the check's table name the old ones."""
    skip = {pathlib.Path(__file__).resolve(),
            ROOT / "src" / "grader" / "settings" / "config_file.py"}
    files = [ROOT / "nbgrader_config.py", *[p for folder in ("deploy", "docs", "testsupport",
                                                            "tests", "src")
                                            for p in (ROOT / folder).rglob("*")
                                            if p.suffix in (".py", ".md", ".yaml", ".yml")]]
    naming = [f"{p.relative_to(ROOT)}: {old}" for p in files if p.is_file() and p not in skip
              for old in OLD_MODULES if f"{old}." in p.read_text(encoding="utf-8")]
    assert naming == []


def test_check_config_refuses_an_old_path_and_names_the_new_one(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        'c.GenerateFeedback.exporter_class = "grader.feedback.FeedbackPage"\n'
        'c.GenerateFeedback.preprocessors = ["nbgrader.preprocessors.GetGrades",\n'
        '                                    "grader.feedback.HideTestCode"]\n'
        'c.AssignLatePenalties.plugin_class = "grader.late.PercentPerDay"\n'
        "c.PercentPerDay.percent = 5\n")
    with pytest.raises(CourseError) as refused:
        load(str(tmp_path))
    where = f"{tmp_path}/nbgrader_config.py, line"
    message = str(refused.value)
    for line, setting, old, new in (
            (2, "GenerateFeedback.exporter_class", "grader.feedback.FeedbackPage",
             "grader.plugins.feedback.FeedbackPage"),
            (3, "GenerateFeedback.preprocessors", "grader.feedback.HideTestCode",
             "grader.plugins.feedback.HideTestCode"),
            (5, "AssignLatePenalties.plugin_class", "grader.late.PercentPerDay",
             "grader.plugins.late.PercentPerDay")):
        assert (f"{where} {line}: c.{setting} names {old}, an old path that is gone: "
                f"name {new}") in message.splitlines()


def test_the_new_paths_are_named_without_a_warning(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        'c.GenerateFeedback.exporter_class = "grader.plugins.feedback.FeedbackPage"\n'
        'c.Autograde.exporter_class = "grader.plugins.nbgrader_guard.SandboxedGradingOnly"\n'
        'c.AssignLatePenalties.plugin_class = "grader.plugins.late.LateDayBudget"\n'
        'c.LateDayBudget.after = "grader.plugins.late.PercentPerDay"\n'
        "c.PercentPerDay.floor_percent = 50\n")
    settings = load(str(tmp_path))
    assert settings.warnings == []
    late = settings.late_penalties().plugin_inst
    assert isinstance(late, plugins.LateDayBudget) and late.after is plugins.PercentPerDay


def test_nbgrader_builds_the_late_policy_the_new_path_names():
    from nbgrader.preprocessors import AssignLatePenalties

    config = Config()
    config.AssignLatePenalties.plugin_class = "grader.plugins.late.LateDayBudget"
    config.LateDayBudget.after = "grader.plugins.late.PercentPerDay"
    late = AssignLatePenalties(config=config)
    late.init_plugin()
    assert isinstance(late.plugin_inst, plugins.LateDayBudget)
    assert late.plugin_inst.after is plugins.PercentPerDay


def test_the_feedback_template_is_found_where_the_package_data_puts_it():
    # src/grader/pyproject.toml ships grader/templates/*/*: the template stays beside the wings
    assert os.path.isfile(os.path.join(TEMPLATES, TEMPLATE_NAME, "index.html.j2"))
    assert os.path.dirname(TEMPLATES) == os.path.dirname(os.path.dirname(plugins.__file__))
