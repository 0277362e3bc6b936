"""The grader's settings on the classes of what reads them: c.Reports, c.SimilarityReport and
c.StudentVariants, read once into Settings and checked like nbgrader's own."""

import os

import pytest

from grader.settings import (CONFIGURABLES, CourseError, Reports, SimilarityReport,
                             StudentVariants, load, shown_url, with_postgres_driver)


def course_with(tmp_path, *lines):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + "".join(
        line + "\n" for line in lines))
    return str(tmp_path)


def test_the_new_names_set_what_settings_reads(tmp_path):
    settings = load(course_with(tmp_path, 'c.Reports.directory = "elsewhere"',
                                "c.SimilarityReport.threshold = 0.8",
                                "c.SimilarityReport.common_fraction = 0.1",
                                'c.StudentVariants.salt = "2027-spring"'))
    assert (settings.reports, settings.similarity_threshold,
            settings.similarity_common_fraction, settings.variant_salt) == (
        "elsewhere", 0.8, 0.1, "2027-spring")
    assert settings.warnings == []


def test_unset_they_are_the_classes_defaults(tmp_path):
    settings = load(course_with(tmp_path))
    assert settings.reports == os.path.join(str(tmp_path), "reports")
    assert settings.similarity_threshold == SimilarityReport().threshold == 0.6
    assert settings.similarity_common_fraction == SimilarityReport().common_fraction == 0.2
    assert settings.variant_salt == StudentVariants().salt == ""
    assert Reports().directory == ""


@pytest.mark.filterwarnings("ignore:Config option `treshold` not recognized:UserWarning")
def test_a_misspelt_name_of_a_new_class_warns_with_the_likely_name(tmp_path):
    settings = load(course_with(tmp_path, "c.SimilarityReport.treshold = 0.8",
                                "c.SimilarityReprot.threshold = 0.8"))
    assert settings.warnings == [
        f"{tmp_path}/nbgrader_config.py, line 2: warning: c.SimilarityReport.treshold is "
        "ignored: SimilarityReport has no setting 'treshold' (did you mean threshold?)",
        f"{tmp_path}/nbgrader_config.py, line 3: warning: c.SimilarityReprot.threshold is "
        "ignored: neither nbgrader nor the grader has settings named SimilarityReprot "
        "(did you mean SimilarityReport?)"]


def test_a_value_out_of_range_is_an_error_with_its_line(tmp_path):
    with pytest.raises(CourseError) as error:
        load(course_with(tmp_path, "c.SimilarityReport.common_fraction = 2.0"))
    assert str(error.value).startswith(
        f"{tmp_path}/nbgrader_config.py, line 2: c.SimilarityReport.common_fraction = 2.0: ")


def test_the_command_line_help_lists_every_class_of_the_graders_settings(capsys):
    from grader.cli import main

    with pytest.raises(SystemExit):
        main(["autograde", "--help"])
    text = capsys.readouterr().out
    for configurable in CONFIGURABLES:
        for name, trait in configurable.class_traits(config=True).items():
            assert f"c.{configurable.__name__}.{name} = {trait.default()!r}:" in text


def test_a_class_the_configuration_names_is_loaded_and_its_settings_known(tmp_path,
                                                                         monkeypatch):
    (tmp_path / "course_policy.py").write_text(
        "from nbgrader.plugins import LateSubmissionPlugin\n"
        "from traitlets import Integer\n\n\n"
        "class HalfOff(LateSubmissionPlugin):\n"
        "    hours = Integer(1).tag(config=True)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    settings = load(course_with(tmp_path,
                                'c.AssignLatePenalties.plugin_class = "course_policy.HalfOff"',
                                "c.HalfOff.hours = 3", "c.HalfOff.hour = 3"))
    assert settings.warnings == [
        f"{tmp_path}/nbgrader_config.py, line 4: warning: c.HalfOff.hour is ignored: HalfOff "
        "has no setting 'hour' (did you mean hours?)"]


@pytest.mark.parametrize("given, read", [
    ("postgresql://grader:secret@db:5432/course",
     "postgresql+psycopg2://grader:secret@db:5432/course"),
    ("postgres://grader@db/course", "postgresql+psycopg2://grader@db/course"),
    ("postgresql+psycopg2://grader@db/course", "postgresql+psycopg2://grader@db/course"),
    ("sqlite:////srv/course/gradebook.db", "sqlite:////srv/course/gradebook.db"),
])
def test_a_postgresql_url_without_a_driver_is_read_with_the_installed_one(given, read):
    assert with_postgres_driver(given) == read


def test_a_shown_url_hides_its_password():
    assert (shown_url("postgresql+psycopg2://grader:s3:cr%40t@db:5432/course")
            == "postgresql+psycopg2://grader:***@db:5432/course")


def test_how_long_a_run_waits_for_a_silent_gradebook_is_a_setting(tmp_path):
    assert load(course_with(tmp_path)).gradebook_retry_seconds == 120.0
    waits = load(course_with(tmp_path, "c.GradebookWriter.retry_seconds = 5"))
    assert waits.gradebook_retry_seconds == 5.0
    with pytest.raises(CourseError, match="retry_seconds"):
        load(course_with(tmp_path, "c.GradebookWriter.retry_seconds = -1"))


def test_the_grading_pages_settings_are_read_with_their_defaults(tmp_path):
    from grader.settings import GradingPage

    settings = load(course_with(tmp_path, 'c.GradingPage.graders = ["ta1", "ta2"]',
                                'c.GradingPage.split = "section"',
                                'c.GradingPage.grader_sections = {"ta1": ["A"], "ta2": ["B"]}'))
    page = GradingPage(config=settings.config)
    assert (page.graders, page.split, page.grader_sections) == (
        ["ta1", "ta2"], "section", {"ta1": ["A"], "ta2": ["B"]})
    assert (page.strict, page.instructors, page.seed, page.previous_assignment) == (
        True, [], "", "")
    assert page.problems() == []
    assert GradingPage().split == "random" and GradingPage().graders == []


@pytest.mark.parametrize("line, problem", [
    ('c.GradingPage.split = "sections"', "The 'split' trait expected any of ['section', "
     "'random', 'previous'], not the str 'sections'."),
    ('c.GradingPage.graders = ["ta1", "ta2", "ta1"]', "ta1 listed twice"),
    ('c.GradingPage.instructors = ["prof", " "]', "a user name is blank"),
    ('c.GradingPage.grader_sections = {"ta1": ["A"], "ta2": []}',
     "ta2 holds no section (give a section or leave the grader out)"),
    ('c.GradingPage.grader_sections = {"ta1": ["A", "A"]}', "ta1 lists a section twice")])
def test_a_wrong_grading_page_setting_is_an_error_with_its_line(tmp_path, line, problem):
    with pytest.raises(CourseError) as error:
        load(course_with(tmp_path, line))
    shown = line.replace('"', "'")  # the value as Python shows it
    assert str(error.value) == f"{tmp_path}/nbgrader_config.py, line 2: {shown}: {problem}"


@pytest.mark.parametrize("settings, problems", [
    ({"graders": ["ta1"], "grader_sections": {"ta1": ["A"], "ta9": ["B"]}},
     ["c.GradingPage.grader_sections names ta9, not in c.GradingPage.graders"]),
    ({"split": "section"}, ["c.GradingPage.split is 'section' but "
                            "c.GradingPage.grader_sections gives no grader a section"]),
    ({"split": "previous"}, ["c.GradingPage.split is 'previous' but "
                             "c.GradingPage.previous_assignment names no assignment"]),
    ({"grader_sections": {"ta9": ["B"]}}, [])])  # graders from the hub: not known here
def test_grading_page_settings_that_contradict_each_other_are_said(settings, problems):
    from grader.settings import GradingPage

    assert GradingPage(**settings).problems() == problems


def test_an_ai_policy_per_assignment_and_the_declaration_are_read_from_the_configuration(
        tmp_path):
    from grader.settings import AiPolicy

    settings = load(course_with(tmp_path, 'c.AiPolicy.policies = {"hw": "  No AI.  "}',
                                "c.AiPolicy.declaration = True"))
    policy = AiPolicy(config=settings.config)
    assert (policy.policy_of("hw"), policy.policy_of("other"), policy.declaration) == (
        "No AI.", "", True)
    assert settings.warnings == []
    unset = AiPolicy(config=load(course_with(tmp_path)).config)
    assert (unset.policies, unset.declaration) == ({}, False)


def test_an_ai_policy_that_is_not_text_is_an_error_with_its_line(tmp_path):
    with pytest.raises(CourseError) as error:
        load(course_with(tmp_path, 'c.AiPolicy.policies = {"hw": 3}'))
    assert str(error.value).startswith(
        f"{tmp_path}/nbgrader_config.py, line 2: c.AiPolicy.policies = {{'hw': 3}}: ")


def test_a_policy_for_an_unknown_assignment_or_too_long_is_named():
    from grader.settings import ai_policy_problems

    longest = "x" * 2_000
    assert ai_policy_problems({"parameters": longest, "sampling": ""},
                              ["parameters", "sampling"]) == []
    assert ai_policy_problems({"paramters": "No AI.", "sampling": longest + "y"},
                              ["parameters", "sampling"]) == [
        "c.AiPolicy.policies names 'paramters', which is not an assignment of this course (the "
        "assignments: parameters, sampling); its policy would show nowhere",
        "c.AiPolicy.policies['sampling'] is 2,001 characters long; at most 2,000 (a few "
        "sentences students read above their work: link to a longer page from it)"]


def test_check_config_refuses_a_policy_for_an_assignment_the_course_does_not_have(tmp_path,
                                                                                 capsys):
    import nbformat

    from grader.cli import main

    (tmp_path / "solutions" / "hw").mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), str(tmp_path / "solutions" / "hw" / "hw.ipynb"))
    course = course_with(tmp_path, 'c.CourseDirectory.source_directory = "solutions"',
                         'c.AiPolicy.policies = {"hw": "No AI.", "h w": "Some AI."}')
    assert main(["check-config", "--course", course]) == 2
    assert ("c.AiPolicy.policies names 'h w', which is not an assignment of this course (the "
            "assignments: hw); its policy would show nowhere") in capsys.readouterr().err
    course = course_with(tmp_path, 'c.CourseDirectory.source_directory = "solutions"',
                         'c.AiPolicy.policies = {"hw": "No AI."}')
    assert main(["check-config", "--course", course]) == 0
