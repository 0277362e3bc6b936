"""The grading service's commands, added to ``python -m grader`` by cli.py:

    python -m grader serve [--workers N | --scheduler ADDRESS] [--lease SECONDS]
    python -m grader queue [--json] [--status]
    python -m grader page [--port PORT] [--instructors GROUP]
    python -m grader check ASSIGNMENT NOTEBOOK.ipynb ... --student ID
    python -m grader student-view ASSIGNMENT --student ID [--json]
    python -m grader extensions [extensions.csv] [--despite-public-solutions]
    python -m grader collect-zip ASSIGNMENT submissions.zip [--lms canvas|moodle] [--queue]

`serve` grades each hand-in as it arrives (loop.py); `queue` lists every hand-in
the service knows (listing.py), below whether the service is warm (status.py),
and with --status only that, exiting 0 only when a service is warm; `page` is the
students' page on the hub (page.py; page_http.py with c.HubTransport.transport =
"http"); `check` and `student-view` are the page's two actions at the command line
(student_commands.py); `extensions` applies the students' extensions file to the gradebook
(make extensions, grader/recording/extensions.py), here since it asks the service's store
whose feedback already went out (after_feedback.py); it refuses an extension that lets a
student earn points after the assignment's solutions went out unless told; `collect-zip`
puts an LMS's download into submitted/ (grader/intake/) and with --queue hands it to the
service's queue. `serve` pushes final grades through the pushes of the push wing.
"""

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping

from ..intake import collect_zip
from ..lms import DEFAULT_PLATFORM, PLATFORMS
from ..push import final_pushes
from ..recording import EXTENSIONS_FILE
from ..sandbox import require_sandbox
from ..settings import GradingService, HubTransport, ServicePage, Settings, load
from .after.after_feedback import extensions_applied
from .after.final_push import PushSetupError, Pusher, chosen_pusher
from .after.recorded import recorded_jobs
from .page.listing import queue_record, queue_table
from .page.student_commands import STUDENT_COMMANDS, add_student_commands
from .queue.loop import LEASE_SECONDS
from .queue.records import JobSource, SourceKind
from .queue.release_watch import current_release
from .queue.status import any_warm, host_prefix, services, status_lines
from .queue.store import course_store
from .queue.submitted import queue_submitted
from .serving import run_service

PAGE_PORT = 10101  # the page's port on 127.0.0.1, as deploy/jupyterhub_service.py names it
LOOPBACK = "127.0.0.1"  # where the page listens unless told (--address)


def loaded(args: argparse.Namespace) -> Settings:
    settings = load(args.course)
    for warning in settings.warnings:
        print(warning, file=sys.stderr)
    return settings


def add_service_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                         ) -> None:
    serve = commands.add_parser("serve", help="grade each hand-in as it arrives, until stopped")
    serve.add_argument("--workers", type=int, default=1,
                       help="students graded at once on this machine (default 1)")
    serve.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="grade on the workers of the Dask cluster at ADDRESS; the queue "
                            "stays in the service's database")
    serve.add_argument("--lease", type=float, default=LEASE_SECONDS, metavar="SECONDS",
                       help="how long a claimed hand-in is held without a heartbeat before "
                            f"another service may take it (default {LEASE_SECONDS:g})")
    listing = commands.add_parser("queue", help="every hand-in the grading service knows")
    listing.add_argument("--json", action="store_true",
                         help="a JSON list of {student, assignment, state, attempts, arrived, "
                              "graded, score} (with --status: of {service, state, since, "
                              "started, seen, detail})")
    listing.add_argument("--status", action="store_true",
                         help="only whether the grading service is starting, warm (its "
                              "templates ready), stopped or gone; exit status 0 only when "
                              "one is warm")
    page = commands.add_parser("page", help="the students' page of the grading service, "
                               "as a JupyterHub-managed service")
    page.add_argument("--port", type=int, default=PAGE_PORT,
                      help=f"its port (default {PAGE_PORT})")
    page.add_argument("--address", default=LOOPBACK,
                      help=f"the address it listens on (default {LOOPBACK}, where a hub on "
                           "this machine reaches it); in a pod of its own, 0.0.0.0, for the "
                           "hub's proxy on the cluster's network. Only the page over HTTP "
                           "(c.HubTransport.transport = \"http\") listens beyond this machine")
    page.add_argument("--instructors", default=None, metavar="GROUP",
                      help="the Unix group that sees every student (default: "
                           "c.ServicePage.instructors_group)")
    page.add_argument("--home-reader", default="", metavar="SOCKET",
                      help="the socket of `grader home-reader`, which reads a student's saved "
                           "notebook as the student, so that the page needs no root")
    extensions = commands.add_parser("extensions", help="the extensions file, into the gradebook")
    extensions.add_argument("csv", nargs="?", default="",
                            help=f"student_id,assignment,extra_hours|new_due,note rows "
                                 f"(default: {EXTENSIONS_FILE} in the course folder)")
    extensions.add_argument("--despite-public-solutions", action="store_true",
                            help="apply an extension that lets a student earn points after "
                                 "the assignment's solutions went out (refused without it), "
                                 "with a warning line naming each")
    add_student_commands(commands)
    collect = commands.add_parser("collect-zip",
                                  help="an LMS's download of one assignment into submitted/")
    collect.add_argument("assignment")
    collect.add_argument("zip", help="the zip of every submission, as the LMS gives it")
    collect.add_argument("--lms", choices=list(PLATFORMS), default=DEFAULT_PLATFORM,
                         help=f"which LMS made the zip (default {DEFAULT_PLATFORM})")
    collect.add_argument("--queue", action="store_true",
                         help="also hand what submitted/ holds to the grading service's queue "
                              "(make serve grades it; unchanged notebooks are not graded again)")


def run_collect_zip(args: argparse.Namespace) -> int:
    settings = loaded(args)
    outcome = collect_zip(settings, args.assignment, args.zip, args.lms)
    for line in outcome.report_lines():
        print(line)
    if args.queue:
        store = course_store(settings.data, settings.db_url)
        source = JobSource.of(SourceKind.ZIP, os.path.basename(args.zip))
        for line in queue_submitted(settings, store, args.assignment, source):
            print(line)
    return 1 if outcome.refused else 0


def serving_with(pushers: Mapping[str, Pusher]) -> Callable[[argparse.Namespace], int]:
    """The serve command, with the LMS pushes c.GradingService.push_final_grades may name
    (the push wing's `final_pushes`)."""
    def run_serve(args: argparse.Namespace) -> int:
        if args.workers < 1 or args.lease <= 0:
            print("error: --workers takes a number from 1 up, --lease a positive number of "
                  "seconds", file=sys.stderr)
            return 2
        if not args.scheduler:  # the sandbox is the Dask workers' there, checked as they grade
            require_sandbox()
        settings = loaded(args)
        try:
            chosen_pusher(GradingService(config=settings.config).push_final_grades, pushers)
        except PushSetupError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        failure = run_service(settings, args.workers, args.scheduler, stop, args.lease, pushers)
        return 1 if failure else 0

    return run_serve


def run_queue(args: argparse.Namespace) -> int:
    settings = load(args.course)
    store = course_store(settings.data, settings.db_url)
    shown = services(store, host_prefix())
    if args.status:
        print(json.dumps([status.record() for status in shown], indent=1) if args.json
              else "\n".join(status_lines(shown)))
        return 0 if any_warm(shown) else 1
    jobs, grades = recorded_jobs(settings, store.jobs())
    if args.json:
        graded = store.releases_graded()
        now = {a: current_release(settings, a) for a in {job.assignment for job in jobs}}
        print(json.dumps([queue_record(job, grades.get(job.id), graded.get(job.id, ""),
                                       now[job.assignment]) for job in jobs], indent=1))
    else:
        print("\n".join([*status_lines(shown), "", *queue_table(jobs, grades)]))
    return 0


def run_page(args: argparse.Namespace) -> int:
    from .page.page import serve_page  # tornado and the hub's client: only for the page
    from .page.page_api import serve_http_page  # the same, over HTTP

    settings = loaded(args)
    instructors = args.instructors or ServicePage(config=settings.config).instructors_group
    over_http = HubTransport(config=settings.config).transport == "http"
    if not over_http and not is_loopback(args.address):
        print(f"grader page: --address {args.address} refused: the page of the file exchange "
              f"reads the students' homes on this machine and listens on {LOOPBACK} only; "
              "set c.HubTransport.transport = \"http\" for a page in a pod of its own",
              file=sys.stderr)
        return 2
    store = course_store(settings.data, settings.db_url)
    if over_http:
        serve_http_page(settings, store, args.port, instructors, args.address)
    else:
        serve_page(settings, store, args.port, instructors, args.address, args.home_reader)
    return 0


def run_extensions(args: argparse.Namespace) -> int:
    settings = loaded(args)
    path = args.csv or os.path.join(settings.root, EXTENSIONS_FILE)
    store = course_store(settings.data, settings.db_url)
    for line in extensions_applied(settings, store, path, args.despite_public_solutions):
        print(line, file=sys.stderr if line.startswith("warning: ") else sys.stdout)
    return 0


def is_loopback(address: str) -> bool:
    """Whether `address` is one of this machine's own (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


SERVICE_COMMANDS = {"serve": serving_with(final_pushes()), "queue": run_queue,
                    "page": run_page, "extensions": run_extensions,
                    "collect-zip": run_collect_zip, **STUDENT_COMMANDS}
