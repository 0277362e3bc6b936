"""Settings that moved to the class that reads them: an nbgrader_config.py written with the old
names keeps working, says the new name once, and is checked as strictly as the new names."""

import pytest

from grader.cli import main
from grader.settings import CourseError, load
from grader.settings.renamed import RENAMED

OLD_SETTINGS = {  # the old line, the value it sets, what Settings reads it as
    "variant_salt": ('c.SandboxGrader.variant_salt = "2025-spring"', "variant_salt",
                     "2025-spring"),
    "similarity_threshold": ("c.SandboxGrader.similarity_threshold = 0.75",
                             "similarity_threshold", 0.75),
    "similarity_common_fraction": ("c.SandboxGrader.similarity_common_fraction = 0.35",
                                   "similarity_common_fraction", 0.35),
    "reports_directory": ('c.SandboxGrader.reports_directory = "elsewhere"', "reports",
                          "elsewhere"),
}


def course_with(tmp_path, *lines):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + "".join(
        line + "\n" for line in lines))
    return str(tmp_path)


@pytest.mark.parametrize("old", sorted(OLD_SETTINGS))
def test_an_old_setting_name_still_sets_the_value_and_says_the_new_name(tmp_path, old):
    line, field, value = OLD_SETTINGS[old]
    settings = load(course_with(tmp_path, line))
    assert getattr(settings, field) == value
    new_section, new_name = RENAMED["SandboxGrader", old]
    assert settings.warnings == [
        f"{tmp_path}/nbgrader_config.py, line 2: warning: c.SandboxGrader.{old} is deprecated: "
        f"it is c.{new_section}.{new_name} now (the value is used; rename the line)"]
    # every reader of the configuration sees the new name only
    assert old not in settings.config.SandboxGrader
    assert settings.config[new_section][new_name] == value


def test_check_config_prints_the_deprecation_once(tmp_path, capsys):
    course = course_with(tmp_path, 'c.SandboxGrader.variant_salt = "2025-spring"',
                         "c.SandboxGrader.similarity_threshold = 0.75")
    assert main(["check-config", "--course", course]) == 0
    err = capsys.readouterr().err
    assert err.count("c.SandboxGrader.variant_salt is deprecated: it is "
                     "c.StudentVariants.salt now") == 1
    assert err.count("c.SandboxGrader.similarity_threshold is deprecated: it is "
                     "c.SimilarityReport.threshold now") == 1


def test_the_new_name_counts_when_both_are_set(tmp_path):
    settings = load(course_with(tmp_path, 'c.StudentVariants.salt = "new"',
                                'c.SandboxGrader.variant_salt = "old"'))
    assert settings.variant_salt == "new"
    assert settings.warnings == [
        f"{tmp_path}/nbgrader_config.py, line 3: warning: c.SandboxGrader.variant_salt is "
        "deprecated and ignored: c.StudentVariants.salt is set too, and counts"]


def test_a_wrong_value_under_an_old_name_is_an_error_with_its_line(tmp_path):
    course = course_with(tmp_path, 'c.SandboxGrader.similarity_threshold = "high"')
    with pytest.raises(CourseError) as error:
        load(course)
    assert str(error.value) == (
        f"{tmp_path}/nbgrader_config.py, line 2: c.SandboxGrader.similarity_threshold = 'high': "
        "The 'threshold' trait expected a float, not the str 'high'.")


def test_sandbox_grader_no_longer_holds_the_moved_settings():
    from grader.settings import SandboxGrader

    assert not {name for _, name in RENAMED} & set(SandboxGrader.class_traits(config=True))
