"""The grading page's command, added to ``python -m grader`` by cli.py (docs/grading-page.md):

    python -m grader grading-page [--port PORT] [--hub GROUP]
                         the staff's grading page on 127.0.0.1: one address per grader,
                         or a JupyterHub service for the graders and the hub group GROUP
"""

import argparse

from ..settings import load


def add_grading_page_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                              ) -> None:
    page = commands.add_parser("grading-page", help="the staff's grading page of the explain "
                               "answers: grouped, graded by the rubric's items, shared among "
                               "the graders (127.0.0.1; prints each grader's address)")
    page.add_argument("--port", type=int, default=8765, help="the port on 127.0.0.1 "
                      "(default 8765; 0: any free one)")
    page.add_argument("--hub", metavar="GROUP", default=None, help="run as a JupyterHub "
                      "service (deploy/jupyterhub_service.py): who asks is the hub's login, "
                      "let in when a grader of the course or in the hub group GROUP")


def run_grading_page(args: argparse.Namespace) -> int:
    from .app import serve_grading_page  # JupyterHub's service auth: for this command only

    serve_grading_page(load(args.course), args.port, lambda line: print(line, flush=True),
                       args.hub)
    return 0


GRADING_PAGE_COMMANDS = {"grading-page": run_grading_page}
