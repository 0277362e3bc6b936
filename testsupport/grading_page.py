"""The staff's grading page served in a thread of this process, on 127.0.0.1 and a free
port, for tests and benchmarks that drive it over HTTP or in Chromium."""

import asyncio
import contextlib
import threading


@contextlib.contextmanager
def served(course, tokens):
    """The page of `course` (its settings) signed in by `tokens` ({grader: token}): yields
    its address, and stops it after."""
    from tornado.ioloop import IOLoop

    from grader.grading_page.app import make_app
    from grader.grading_page.staff import StaffSplit

    ready, held = threading.Event(), {}

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        server = make_app(course, StaffSplit(course), tokens).listen(0, address="127.0.0.1")
        held["port"] = next(iter(server._sockets.values())).getsockname()[1]
        held["loop"] = IOLoop.current()
        ready.set()
        IOLoop.current().start()

    threading.Thread(target=run, daemon=True).start()
    if not ready.wait(30):
        raise RuntimeError("the grading page did not start within 30 s")
    try:
        yield f"http://127.0.0.1:{held['port']}"
    finally:
        held["loop"].add_callback(held["loop"].stop)
