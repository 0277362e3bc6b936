"""The start of the inside, and the loop that answers the driver's requests.

The grader starts the inside with a short bootstrap (``sandbox/command.py``,
START_INSIDE) that calls `main_inside_sandbox`: its arguments are the request and
reply pipes' descriptors, the course package's name and, for a warm template,
its control channel's descriptor.
"""

import os
import sys
import threading

from .protocol import flush_streams, read_requests, send, use_channel
from .shell import Runner
from .template_server import serve_template, warm_up

CONTROL_FD = None  # a template's control channel, set from the command line


def serve(runner):
    """Answer requests until the driver closes the request pipe."""
    send({"ready": True})
    for request in read_requests():
        if request.get("op") == "template" and CONTROL_FD is not None:
            send({"id": request.get("id"), "template": True})
            serve_template(runner, CONTROL_FD, serve)
            return
        reply = runner.handle(request)
        flush_streams()
        send(reply)


def main_inside_sandbox():
    global CONTROL_FD
    use_channel(int(sys.argv[1]), int(sys.argv[2]))
    package = sys.argv[3]
    CONTROL_FD = int(sys.argv[4]) if len(sys.argv) > 4 else None
    work = os.getcwd()
    runner = Runner(package)
    if CONTROL_FD is not None:  # a template: warmed up while its set-up cells run
        runner.warming = threading.Thread(target=warm_up, name="warm-up")
        runner.warming.start()
    sys.path.append(work)  # like a notebook: the student's own modules import, last
    serve(runner)
