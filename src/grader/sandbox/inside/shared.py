"""What the grader and the inside of the sandbox both know.

The sandbox's home and working folder (the driver builds them, the inside works
in them), the cap on an exception's message, and `short`, how an exception is
worded on both sides. It is the one module of the inside the grader imports;
inside it is imported before any notebook code runs.
"""

_BaseException = BaseException  # kept before any notebook code runs, which could replace them
_type = type
_str = str
_isinstance = isinstance

SANDBOX_HOME = "/home/student"  # inside the sandbox
SANDBOX_WORK = SANDBOX_HOME + "/work"
MESSAGE_CAP = 600  # characters of an exception's message kept


def short(exc: BaseException) -> str:
    """'TypeError: message' in at most MESSAGE_CAP characters, whatever the exception does."""
    try:
        name = _type(exc).__name__
    except _BaseException:
        name = "Exception"
    try:
        text = _str(exc)
    except _BaseException:
        text = "(the exception's message could not be printed)"
    if _isinstance(exc, SystemExit):
        return f"the code called sys.exit({text})" if text else "the code called sys.exit()"
    if _isinstance(exc, KeyboardInterrupt):
        return "the code raised KeyboardInterrupt"
    message = f"{name}: {text}" if text else name
    return message[:MESSAGE_CAP]
