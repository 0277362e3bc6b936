"""The students' page: what a student asks of the service and what they are shown.

- ``visibility.py``: what a student sees of each check before their due date
  (``c.CheckFeedback``: now, hint, after_due).
- ``rate_limit.py``: how many checks a student may ask for (``c.CheckRateLimit``),
  what remains and when the next is allowed.
- ``requests.py``: "Check my notebook": `ask_for_check` (refused before anything is
  stored when it cannot be graded, has a syntax error or the limit is reached; a check
  is never a submission) and `student_hand_ins`, what the student sees of their hand-ins.
- ``actions.py``: what a student may ask of the page (get, check, hand in, feedback,
  ask for a regrade) and each answer (`Answer`, its `Outcome`), written once for both
  transports.
- ``standing.py``: "Where do I stand", first on the page (every assignment's state, the
  score once the feedback is out, the late days, the open regrade requests), the regrade
  form of each assignment whose feedback is out, and the student's requests.
- ``page.py``: the students' page, a JupyterHub-managed service (HubOAuth), by the file
  exchange: an adapter that reads the notebook saved in the student's home.
- ``saved.py``, ``home_reader.py``: the notebook a student saved in their home, read
  defensively; the home reader, which reads it as the student for the page alone, so
  that the page runs as the course's account, not root (``grader home-reader``).
- ``page_http.py``, ``page_api.py``: the course page over HTTP
  (``c.HubTransport.transport = "http"``, no shared disk): the page with the feedback,
  and the API that each student's own server calls with its own token (the hand-in
  panel, ``grader.student_server``: Get, Check my notebook, Hand in, the feedback into
  the server), an adapter of the same actions. The page never reaches into a student's
  server.
- ``student_commands.py``: the student's side at the command line (check,
  student-view), which the service's commands add.
- ``listing.py``: the queue as `python -m grader queue` prints it.

The page's modules that serve over HTTP import tornado and the hub's client; this face
imports none of them, so the service's other rooms do not load them.
"""

from .listing import QUEUE_FIELDS, iso_utc, queue_record, queue_table

__all__ = ["QUEUE_FIELDS", "iso_utc", "queue_record", "queue_table"]
