"""The staff's list of students' regrade requests (asked on the course page,
grader.recording.asked_regrades): open ones first, each answered with or without a change
of score; the student reads the answer on the course page. Every text is escaped."""

import html

from ..recording import AskedRegrade, RequestState
from ..safe_text import shown, shown_id
from .views import STYLE

E = html.escape


def request_row(request: AskedRegrade, xsrf: str) -> str:
    head = (f"<h3>{E(shown_id(request.student))}: {E(request.assignment)}, "
            f"{E(request.item)}</h3><p>Asked {E(request.asked_at)}:</p>"
            f"<pre>{E(shown(request.message, keep_layout=True))}</pre>")
    if request.state == RequestState.OPEN:
        return (f"<article id='r-{E(request.id)}'>{head}<form method=post action='requests'>"
                f"{xsrf}<input type=hidden name=request value='{E(request.id)}'><label>Your "
                f"answer <textarea name=answer rows=3 maxlength=2000 required></textarea>"
                f"</label><label><input type=checkbox name=changed value=yes> the score was "
                f"changed (in the gradebook, on this page or by make regrade)</label><button "
                f"type=submit>Answer</button></form></article>")
    change = "score changed" if request.changed else "no change"
    return (f"<article id='r-{E(request.id)}'>{head}<p>Answered by "
            f"{E(shown_id(request.by))}, {E(request.answered_at)} ({change}):</p>"
            f"<pre>{E(shown(request.answer, keep_layout=True))}</pre></article>")


def requests_page(requests: list[AskedRegrade], message: str, user: str, xsrf: str) -> str:
    open_ones = [r for r in requests if r.state == RequestState.OPEN]
    answered = [r for r in requests if r.state != RequestState.OPEN]
    notice = f"<p class=note role=status>{E(message)}</p>" if message else ""
    body = "".join(request_row(r, xsrf) for r in open_ones) or "<p>No open request.</p>"
    done = "".join(request_row(r, xsrf) for r in reversed(answered))
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Regrade requests"
            f"</title><style>{STYLE}</style></head><body><header><a href='./'>All questions"
            f"</a><h1>Regrade requests</h1><p>Signed in as {E(shown_id(user))}. "
            f"{len(open_ones)} open, {len(answered)} answered.</p>{notice}</header><main>"
            f"<section aria-label='open requests'><h2>Open</h2>{body}</section>"
            f"<section aria-label='answered requests'><h2>Answered</h2>"
            f"{done or '<p>None yet.</p>'}</section></main></body></html>")
