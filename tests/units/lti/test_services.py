"""Do AGS and NRPS reach the platform as LTI 1.3 says: a signed client assertion for a token,
one line item per assignment, scores with their four fields, 5xx retried, 401 a clear stop?"""

import dataclasses

import pytest

from grader.lms import LmsRefused, LmsUnavailable
from grader.lti.ags import TAG, find_or_create_line_item, post_score, results
from grader.lti.keys import make_keys
from grader.lti.nrps import learners
from grader.lti.services import SCORE_SCOPE, PlatformServices


def test_the_token_is_granted_for_the_tools_signed_assertion(services, platform):
    token = services.access_token((SCORE_SCOPE,))
    assert platform.security.validate_token(token, allowed_scopes=[SCORE_SCOPE]) is True
    assert services.access_token((SCORE_SCOPE,)) == token  # kept, not asked for again


def test_an_assertion_signed_with_another_key_is_refused_with_a_clear_stop(services, tmp_path):
    other, _ = make_keys(str(tmp_path / "other"))
    stranger = PlatformServices(services.registration, other, sleep=lambda s: None)
    with pytest.raises(LmsRefused, match=r"refused the tool \(401.*c\.LtiTool\.client_id"):
        stranger.access_token((SCORE_SCOPE,))


def test_a_line_item_is_made_once_then_found_by_its_resource_id(services, platform):
    item, how = find_or_create_line_item(services, "parameters", 10.0)
    assert how == "made now"
    again, how = find_or_create_line_item(services, "parameters", 10.0)
    assert (again, how) == (item, "its resourceId")
    assert list(platform.line_items.values()) == [
        {"label": "parameters", "scoreMaximum": 10.0, "resourceId": "parameters", "tag": TAG}]


def test_a_line_item_made_by_hand_with_the_tag_and_label_is_reused_not_duplicated(services,
                                                                                   platform):
    with platform.lock:
        platform.line_items[41] = {"label": "parameters", "scoreMaximum": 10.0, "tag": TAG}
    item, how = find_or_create_line_item(services, "parameters", 10.0)
    assert (item.url, how) == (platform.url + "/course/lineitems/41", "its tag and label")
    assert len(platform.line_items) == 1


def test_a_score_carries_the_four_fields_and_reads_back_as_a_result(services, platform):
    item, _ = find_or_create_line_item(services, "parameters", 10.0)
    post_score(services, item, "sub-ada", 8.5, 10.0, "parameters: 8.5/10 points")
    [score] = platform.scores_of(int(item.url.rsplit("/", 1)[1]))
    assert {k: score[k] for k in ("userId", "scoreGiven", "scoreMaximum", "activityProgress",
                                  "gradingProgress", "comment")} == {
        "userId": "sub-ada", "scoreGiven": 8.5, "scoreMaximum": 10.0,
        "activityProgress": "Completed", "gradingProgress": "FullyGraded",
        "comment": "parameters: 8.5/10 points"}
    held = results(services, item, 10.0)
    assert (held["sub-ada"].score, held["sub-ada"].comments) == (8.5, (
        "parameters: 8.5/10 points",))


def test_a_score_answered_503_once_is_posted_again_and_recorded_once(services, platform):
    item, _ = find_or_create_line_item(services, "parameters", 10.0)
    platform.fail_once("POST", r"/course/lineitems/\d+/scores", 503)
    post_score(services, item, "sub-bob", 7.0, 10.0, "")
    assert [s["scoreGiven"] for s in platform.scores_of(int(item.url.rsplit("/", 1)[1]))] == [7.0]
    assert [r for r in platform.requests if r[1].endswith("/scores")][-2:] == [
        ("POST", item.url.removeprefix(platform.url) + "/scores", 503),
        ("POST", item.url.removeprefix(platform.url) + "/scores", 200)]


def test_a_platform_that_keeps_answering_503_is_given_up_after_the_retries(services, platform):
    item, _ = find_or_create_line_item(services, "parameters", 10.0)
    for _ in range(4):
        platform.fail_once("POST", r"/course/lineitems/\d+/scores", 503)
    with pytest.raises(LmsUnavailable, match=r"answered 503 \(after 4 tries\)"):
        post_score(services, item, "sub-bob", 7.0, 10.0, "")
    assert platform.scores_of(int(item.url.rsplit("/", 1)[1])) == []


def test_the_roster_is_the_learners_without_the_instructor(services):
    assert [(m.user_id, m.given_name, m.family_name, m.email) for m in learners(services)] == [
        ("sub-ada", "Ada", "Adams", "ada@example.edu"), ("sub-bob", "Bob", "Brown",
                                                         "bob@example.edu"),
        ("sub-cy", "Cy", "Cole", "cy@example.edu")]


def test_an_assertion_for_another_audience_is_refused(services):
    services.registration = dataclasses.replace(services.registration,
                                                auth_audience="https://elsewhere.invalid/token")
    with pytest.raises(LmsRefused, match=r"aud must be 'http://127\.0\.0\.1:\d+/token'"):
        services.access_token((SCORE_SCOPE,))
