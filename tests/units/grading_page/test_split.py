"""Who grades whom on the staff's grading page: the class shared among the graders, kept once
shared, moved only by those who may, and what each grader has left."""

import collections
import json

import pytest

from grader.grading_page import (ReassignStatus, assign_graders, graders_for, may_score,
                                 progress, read_split_record, reassign, split_record_path)
from grader.settings import CourseError, GradingPage

CLASS = [f"student{n:02d}" for n in range(60)]


def sizes(split):
    return sorted(collections.Counter(split.values()).values())


def test_sixty_students_are_dealt_evenly_to_two_and_to_three_graders():
    assert sizes(assign_graders(CLASS, ["ta1", "ta2"], "random", seed="s")) == [30, 30]
    assert sizes(assign_graders(CLASS, ["ta1", "ta2", "ta3"], "random", seed="s")) == [20, 20,
                                                                                     20]
    assert sizes(assign_graders(CLASS + ["extra"], ["ta1", "ta2"], "random", seed="s")) == [
        30, 31]
    assert sizes(assign_graders(CLASS[:58], ["ta1", "ta2", "ta3"], "random", seed="s")) == [
        19, 19, 20]


def test_the_same_seed_gives_the_same_split_and_another_seed_another():
    first = assign_graders(CLASS, ["ta1", "ta2"], "random", seed="2027")
    assert assign_graders(reversed(CLASS), ["ta1", "ta2"], "random", seed="2027") == first
    other = assign_graders(CLASS, ["ta1", "ta2"], "random", seed="2028")
    assert set(other) == set(first) == set(CLASS)
    assert other != first


def test_a_student_added_later_moves_nobody_and_goes_to_the_least_loaded(tmp_path):
    page = GradingPage(graders=["ta1", "ta2", "ta3"], seed="s")
    before = graders_for(str(tmp_path), "hw1", CLASS[:59], page)
    assert sizes(before) == [19, 20, 20]
    smallest = min(["ta1", "ta2", "ta3"], key=list(before.values()).count)
    after = graders_for(str(tmp_path), "hw1", CLASS, page)
    assert {s: after[s] for s in before} == before
    assert after["student59"] == smallest
    assert sizes(after) == [20, 20, 20]
    # the pure split does the same with the students already placed kept
    assert assign_graders(CLASS, ["ta1", "ta2", "ta3"], "random", seed="s",
                          kept=before) == after


SECTIONS = {**{f"a{n}": "A" for n in range(10)}, **{f"b{n}": "B" for n in range(10)},
            **{f"c{n}": "C" for n in range(6)}}
HELD = {"ta1": ["A"], "ta2": ["B"], "ta3": ["B", "C"]}


def test_by_section_each_section_goes_to_its_graders_shared_evenly():
    split = assign_graders(SECTIONS, ["ta1", "ta2", "ta3"], "section", seed="s",
                           sections=SECTIONS, grader_sections=HELD)
    owners = collections.defaultdict(collections.Counter)
    for student, grader in split.items():
        owners[SECTIONS[student]][grader] += 1
    assert owners == {"A": {"ta1": 10}, "B": {"ta2": 5, "ta3": 5}, "C": {"ta3": 6}}


def test_a_student_whose_section_no_grader_holds_is_refused_with_their_names():
    sections = {**SECTIONS, "d1": "D", "nosection": "", "x\u202e": "D"}
    with pytest.raises(CourseError) as error:
        assign_graders(sections, ["ta1", "ta2", "ta3"], "section", seed="s",
                       sections=sections, grader_sections=HELD)
    assert str(error.value) == (
        "no grader holds the section of 3 student(s): d1 (D), nosection (none), "
        "'x\\u202e' (D); give the section to a grader in c.GradingPage.grader_sections, or "
        "the student a section in the roster")


def test_a_whole_class_without_sections_is_named_twenty_then_counted():
    with pytest.raises(CourseError) as error:
        assign_graders(CLASS, ["ta1"], "section", seed="s", grader_sections={"ta1": ["A"]})
    assert str(error.value).startswith(
        "no grader holds the section of 60 student(s): student00 (none), student01 (none), ")
    assert "student19 (none) and 40 more; give the section" in str(error.value)
    assert "student20" not in str(error.value)


def test_as_previously_each_keeps_their_grader_and_the_new_ones_even_the_load(tmp_path):
    data = str(tmp_path)
    random = GradingPage(graders=["ta1", "ta2"], seed="s")
    hw1 = graders_for(data, "hw1", CLASS[:40], random)
    assert sizes(hw1) == [20, 20]
    # ta1 leaves a student to ta2 in hw1: 19 and 21; hw2 gets 20 new students
    moved = next(s for s, g in hw1.items() if g == "ta1")
    assert reassign(data, "hw1", [moved], "ta2", "ta1", random).status == ReassignStatus.MOVED
    previous = GradingPage(graders=["ta1", "ta2"], split="previous", previous_assignment="hw1")
    hw2 = graders_for(data, "hw2", CLASS, previous)
    assert {s: hw2[s] for s in CLASS[:40]} == {**hw1, moved: "ta2"}
    assert sizes(hw2) == [30, 30]
    assert collections.Counter(hw2[s] for s in CLASS[40:]) == {"ta1": 11, "ta2": 9}


def test_as_previously_a_grader_gone_leaves_their_students_to_the_others():
    previous = {"a": "ta1", "b": "ta9", "c": "ta2", "d": "ta9"}
    split = assign_graders(["a", "b", "c", "d"], ["ta1", "ta2"], "previous", seed="s",
                           previous=previous)
    assert (split["a"], split["c"]) == ("ta1", "ta2")
    assert sorted([split["b"], split["d"]]) == ["ta1", "ta2"]


def test_as_previously_without_a_record_of_that_assignment_is_refused(tmp_path):
    page = GradingPage(graders=["ta1"], split="previous", previous_assignment="hw0")
    with pytest.raises(CourseError, match=r"c.GradingPage.previous_assignment is 'hw0', which "
                       r"has no record of its graders \(.*hw0.json\)"):
        graders_for(str(tmp_path), "hw1", CLASS, page)
    assert not (tmp_path / "grading-page" / "hw1.json").exists()


def test_settings_that_contradict_each_other_share_nobody_out(tmp_path):
    page = GradingPage(graders=["ta1"], split="previous")
    with pytest.raises(CourseError) as error:
        graders_for(str(tmp_path), "hw1", CLASS, page)
    assert str(error.value) == ("c.GradingPage.split is 'previous' but "
                                "c.GradingPage.previous_assignment names no assignment")
    assert list(tmp_path.iterdir()) == []


def test_the_split_stays_when_the_settings_and_the_class_change(tmp_path):
    data = str(tmp_path)
    first = graders_for(data, "hw1", CLASS[:30], GradingPage(graders=["ta1", "ta2"]))
    changed = GradingPage(graders=["ta3", "ta4"], split="section",
                          grader_sections={"ta3": ["A"], "ta4": ["B"]})
    sections = {s: "A" if n % 2 else "B" for n, s in enumerate(CLASS)}
    later = graders_for(data, "hw1", CLASS[20:32], changed, sections=sections)
    assert {s: later[s] for s in CLASS[:30]} == first
    assert (later["student30"], later["student31"]) == ("ta4", "ta3")
    record = read_split_record(split_record_path(data, "hw1"))
    assert record["graders"] == later
    assert [sorted(entry["placed"]) for entry in record["history"]] == [
        CLASS[:30], ["student30", "student31"]]
    # nothing new: nothing written
    text = (tmp_path / "grading-page" / "hw1.json").read_text()
    assert graders_for(data, "hw1", CLASS[:10], changed) == later
    assert (tmp_path / "grading-page" / "hw1.json").read_text() == text


def test_a_seed_not_given_is_chosen_once_and_kept(tmp_path):
    page = GradingPage(graders=["ta1", "ta2"])
    first = graders_for(str(tmp_path), "hw1", CLASS[:10], page)
    seed = read_split_record(split_record_path(str(tmp_path), "hw1"))["seed"]
    assert len(seed) == 16
    graders_for(str(tmp_path), "hw1", CLASS[:20], page)
    assert read_split_record(split_record_path(str(tmp_path), "hw1"))["seed"] == seed
    assert assign_graders(CLASS[:10], ["ta1", "ta2"], "random", seed=seed) == first


def test_reassigning_moves_the_students_and_records_who_and_when(tmp_path):
    data = str(tmp_path)
    page = GradingPage(graders=["ta1", "ta2"], instructors=["prof"], seed="s")
    split = graders_for(data, "hw1", CLASS, page)
    theirs = sorted(s for s, g in split.items() if g == "ta1")[:2]
    done = reassign(data, "hw1", theirs, "ta2", "prof", page)
    assert (done.status, done.moved) == (ReassignStatus.MOVED, dict.fromkeys(theirs, "ta1"))
    record = read_split_record(split_record_path(data, "hw1"))
    assert all(record["graders"][s] == "ta2" for s in theirs)
    assert sizes(record["graders"]) == [28, 32]
    last = record["history"][-1]
    assert (last["by"], last["to"], last["moved"]) == ("prof", "ta2", done.moved)
    assert last["at"].endswith("+00:00")
    again = reassign(data, "hw1", theirs, "ta2", "prof", page)
    assert (again.status, again.moved) == (ReassignStatus.UNCHANGED, {})


@pytest.mark.parametrize("students, to_grader, by, sentence", [
    (["student01"], "ta2", "ta1", "ta1 may not move students between graders; prof may"),
    (["student01"], "ta9", "prof", "ta9 is no grader of this course"),
    (["student01", "eve\u202e"], "ta2", "prof",
     "'eve\\u202e': not in the split of hw1; nobody grades them yet"),
    ([], "ta2", "prof", "no student given to move")])
def test_a_move_refused_says_why_and_changes_nothing(tmp_path, students, to_grader, by,
                                                     sentence):
    page = GradingPage(graders=["ta1", "ta2"], instructors=["prof"], seed="s")
    graders_for(str(tmp_path), "hw1", CLASS, page)
    before = (tmp_path / "grading-page" / "hw1.json").read_bytes()
    done = reassign(str(tmp_path), "hw1", students, to_grader, by, page)
    assert (done.status, done.moved, done.sentence) == (ReassignStatus.REFUSED, {}, sentence)
    assert (tmp_path / "grading-page" / "hw1.json").read_bytes() == before


def test_with_no_instructor_listed_every_grader_may_move_students_and_no_one_else(tmp_path):
    page = GradingPage(graders=["ta1", "ta2"], seed="s")
    graders_for(str(tmp_path), "hw1", CLASS, page)
    assert reassign(str(tmp_path), "hw1", ["student00", "student01"], "ta1", "ta2",
                    page).status != ReassignStatus.REFUSED
    refused = reassign(str(tmp_path), "hw1", ["student00"], "ta2", "guest", page)
    assert refused.sentence == "guest may not move students between graders; the graders may"


def test_the_graders_the_hub_resolves_stand_in_for_an_empty_list(tmp_path):
    page = GradingPage(seed="s")
    with pytest.raises(CourseError, match="no graders: set c.GradingPage.graders"):
        graders_for(str(tmp_path), "hw1", CLASS, page)
    split = graders_for(str(tmp_path), "hw1", CLASS, page, graders=["hubta1", "hubta2"])
    assert set(split.values()) == {"hubta1", "hubta2"}
    assert reassign(str(tmp_path), "hw1", ["student00"], "hubta1", "hubta2", page,
                    graders=["hubta1", "hubta2"]).status != ReassignStatus.REFUSED


SPLIT = {"bob": "ta2", "ada": "ta1"}


@pytest.mark.parametrize("settings, grader, student, sentence", [
    ({}, "ta2", "bob", None),
    ({}, "ta1", "bob", "ta2 grades bob, not ta1; reassign bob first"),
    ({"instructors": ["prof"]}, "ta1", "bob", "ta2 grades bob, not ta1; ask an instructor to "
     "reassign"),
    ({"instructors": ["prof"]}, "prof", "bob", None),
    ({}, "ta1", "eve\u202e", "'eve\\u202e' has no grader yet, so not ta1; reassign "
     "'eve\\u202e' first"),
    ({"strict": False}, "ta1", "bob", None),
    ({"strict": False}, "ta1", "eve", None)])
def test_may_score_keeps_each_grader_to_their_own_students_when_strict(settings, grader,
                                                                       student, sentence):
    page = GradingPage(graders=["ta1", "ta2"], **settings)
    assert may_score(grader, student, SPLIT, page) == sentence


def test_progress_counts_what_each_grader_has_graded_and_left():
    split = {"a": "ta1", "b": "ta1", "c": "ta1", "d": "ta2", "e": "ta2"}
    done = progress(split, {"a", "c", "e", "someone-else"})
    assert [(one.grader, one.graded, one.left, one.total) for one in done.graders] == [
        ("ta1", ("a", "c"), ("b",), 3), ("ta2", ("e",), ("d",), 2)]
    assert (done.graded, done.left, done.total) == (3, 2, 5)


@pytest.mark.parametrize("text", ["{not json", '{"graders": ["ta1"], "seed": "s"}',
                                  '{"graders": {"bob": 3}, "seed": "s"}', "[]"])
def test_a_record_that_cannot_be_read_is_named_and_left_as_it_is(tmp_path, text):
    path = tmp_path / "grading-page" / "hw1.json"
    path.parent.mkdir()
    path.write_text(text)
    page = GradingPage(graders=["ta1", "ta2"], instructors=["prof"])
    for act in (lambda: graders_for(str(tmp_path), "hw1", CLASS, page),
                lambda: reassign(str(tmp_path), "hw1", ["bob"], "ta1", "prof", page)):
        with pytest.raises(CourseError) as error:
            act()
        assert str(error.value).startswith(f"{path}: ")
        assert "mend it or move it away" in str(error.value)
    assert path.read_text() == text


@pytest.mark.parametrize("name", ["", "../hw1", ".hidden", "a/b"])
def test_an_assignment_name_that_is_no_file_name_is_refused(tmp_path, name):
    with pytest.raises(CourseError, match="is no assignment name"):
        graders_for(str(tmp_path), name, CLASS, GradingPage(graders=["ta1"]))
    assert list(tmp_path.iterdir()) == []


def test_the_record_is_json_with_the_split_the_seed_and_the_history(tmp_path):
    graders_for(str(tmp_path), "hw1", ["ada", "bob"], GradingPage(graders=["ta1"], seed="x"))
    record = json.loads((tmp_path / "grading-page" / "hw1.json").read_text())
    assert (record["assignment"], record["graders"], record["seed"]) == (
        "hw1", {"ada": "ta1", "bob": "ta1"}, "x")
    assert record["history"][0]["placed"] == {"ada": "ta1", "bob": "ta1"}
    assert record["history"][0]["split"] == "random"


def test_a_move_waits_for_another_writer_of_the_record_and_loses_nothing_of_it(tmp_path):
    """Two staff at once: while another writer holds the record's lock (and moves ada), a
    move of bob waits, then reads the record as that writer left it."""
    import fcntl
    import threading

    data = str(tmp_path)
    page = GradingPage(graders=["ta1", "ta2"], instructors=["prof"], seed="s")
    split = graders_for(data, "hw1", ["ada", "bob"], page)
    other = {"ta1": "ta2", "ta2": "ta1"}
    path = split_record_path(data, "hw1")
    done = []
    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        mover = threading.Thread(target=lambda: done.append(
            reassign(data, "hw1", ["bob"], other[split["bob"]], "prof", page)))
        mover.start()
        mover.join(0.2)
        assert mover.is_alive() and done == []
        record = read_split_record(path)
        record["graders"]["ada"] = other[split["ada"]]
        record["history"].append({"at": "then", "by": "prof", "to": other[split["ada"]],
                                  "moved": {"ada": split["ada"]}})
        (tmp_path / "grading-page" / "hw1.json").write_text(json.dumps(record))
        fcntl.flock(lock, fcntl.LOCK_UN)
    mover.join(5)
    assert not mover.is_alive()
    assert done[0].status == ReassignStatus.MOVED
    assert read_split_record(path)["graders"] == {"ada": other[split["ada"]],
                                                  "bob": other[split["bob"]]}
    assert len(read_split_record(path)["history"]) == 3
