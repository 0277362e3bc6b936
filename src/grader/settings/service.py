"""The grading service's settings: what students see before their due date, and when.

- `CheckFeedback`: each check's visibility before the due date
  (``c.CheckFeedback.checks = {"count_parameters_hidden": "after_due"}``; the words are
  ``now``, ``hint`` and ``after_due``, service/page/visibility.py says what each shows).
- `CheckRateLimit`: how many checks a student may ask for per assignment in a window
  (``c.CheckRateLimit.checks = 5``, ``c.CheckRateLimit.window_minutes = 60``).
- `GradingService`: the service's own work besides grading: each student's feedback
  page released at their due date (``c.GradingService.release_feedback_at_due``),
  looked for every ``feedback_check_seconds``; a new release looked for every
  ``release_check_seconds``; how long a stop waits for the gradings in flight
  (``stop_seconds``); how long a call waits for its queue locked by another program
  (``queue_busy_seconds``); each grade pushed to the LMS once final
  (``push_final_grades``, off unless set).
- `ServicePage`: who sees every student on the students' page
  (``c.ServicePage.instructors_group``).
- `HubTransport`: how notebooks travel between the students and the service: nbgrader's
  file exchange (``"exchange"``, one machine) or the course page over HTTP (``"http"``:
  each student's own server reached through the hub's proxy, no shared disk), with the
  course's two hub groups and the limits of a request to a student's server.
"""

from traitlets import Bool, Dict, Enum, Float, Int, Unicode
from traitlets.config import Configurable


class CheckFeedback(Configurable):
    """What a student sees of each check before their own due date."""

    checks = Dict(help="grade id -> 'now' (verdict and message), 'hint' (verdict and a "
                  "one-line hint) or 'after_due' (nothing before the due date); a check not "
                  "named is 'now', or 'hint' if it has hidden tests").tag(config=True)


class CheckRateLimit(Configurable):
    """How many checks the service grades for a student and an assignment in a window."""

    checks = Int(5, help="checks a student may ask for per assignment in each window; a "
                 "notebook that cannot be checked costs none").tag(config=True)
    window_minutes = Float(60.0, help="the window of the rate limit, in minutes").tag(
        config=True)


class GradingService(Configurable):
    """What `python -m grader serve` does besides grading each hand-in as it arrives."""

    release_feedback_at_due = Bool(True, help="at each student's due date (extensions "
                                   "included), generate the feedback page of their latest "
                                   "graded hand-in and release it through the exchange; a "
                                   "hand-in graded later is released when graded").tag(
        config=True)
    push_final_grades = Unicode("", help="push each student's grade to the LMS when it "
                                "becomes final (at their due date, extensions included, or "
                                "when a later hand-in is graded), with the settings of a "
                                "push command: the LMS's name of make NAME-push, 'lti' for "
                                "make lti-push, or '' for off").tag(config=True)
    feedback_check_seconds = Float(5.0, min=0.05, help="how often the service looks for "
                                   "feedback that is due, in seconds").tag(config=True)
    release_check_seconds = Float(2.0, min=0.05, help="how often the service looks for a "
                                  "changed or new release/<assignment>/ (make release), in "
                                  "seconds; one that stays the same for two looks is switched "
                                  "to between gradings").tag(config=True)
    stop_seconds = Float(25.0, min=0.0, help="after SIGTERM or Ctrl-C, how long the gradings "
                         "in flight may take to finish and be recorded; past that they go "
                         "back to the queue and the workers stop their sandboxes (a "
                         "supervisor's stop timeout should leave 15 s more)").tag(config=True)
    queue_busy_seconds = Float(60.0, min=0.1, help="how long one call of the service waits "
                               "for its queue's database while another program holds it "
                               "locked (SQLite's busy timeout, PostgreSQL's lock_timeout) "
                               "before it fails, is said, and is tried again for up to "
                               "c.GradebookWriter.retry_seconds").tag(config=True)


class ServicePage(Configurable):
    """The students' page of the grading service on the hub (`python -m grader page`)."""

    instructors_group = Unicode("graders", help="the Unix group whose members see every "
                                "student's hand-ins on the page (its --instructors option "
                                "wins)").tag(config=True)


class HubTransport(Configurable):
    """How the released notebooks, the hand-ins and the feedback travel (docs/hub-over-http.md).

    A course on the hub is its course folder plus two hub groups: its students (who get,
    check and hand in from the hand-in panel in their own server, grader.student_server)
    and its instructors (who see every student on the page)."""

    transport = Enum(["exchange", "http"], "exchange", help="'exchange': nbgrader's file "
                     "exchange on one machine (the Assignments tab, make release-to-exchange, "
                     "make collect); 'http': each student gets, checks and hands in from the "
                     "hand-in panel in their own server, which calls the course page's API "
                     "with that server's own token; the page shows the feedback").tag(
        config=True)
    students_group = Unicode("", help="the hub group of the course's students: only they "
                             "get, check and hand in on the page ('' lets every hub user "
                             "who may open the page)").tag(config=True)
    instructors_group = Unicode("", help="the hub group of the course's instructors: they "
                                "see every student's hand-ins on the page ('' falls back to "
                                "c.ServicePage.instructors_group, a Unix group)").tag(
        config=True)
