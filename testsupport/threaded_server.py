"""A tornado application served in a thread of this process, on 127.0.0.1 and a free port,
for tests and benchmarks that drive a page over HTTP or in Chromium."""

import asyncio
import contextlib
import threading


@contextlib.contextmanager
def serving(make_app, what="the page"):
    """Serves the application `make_app()` builds (called in the server's thread): yields
    its address, http://127.0.0.1:PORT, and stops it after."""
    from tornado.ioloop import IOLoop

    ready, held = threading.Event(), {}

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        server = make_app().listen(0, address="127.0.0.1")
        held["port"] = next(iter(server._sockets.values())).getsockname()[1]
        held["loop"] = IOLoop.current()
        ready.set()
        IOLoop.current().start()

    threading.Thread(target=run, daemon=True).start()
    if not ready.wait(30):
        raise RuntimeError(f"{what} did not start within 30 s")
    try:
        yield f"http://127.0.0.1:{held['port']}"
    finally:
        held["loop"].add_callback(held["loop"].stop)
