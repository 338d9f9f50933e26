"""``python -m assistant`` and the ``assistant`` command (pyproject.toml's script): the CLI,
loaded inside a guard, so Ctrl-C while it is still loading ends as it does later, with one
line and exit status 130, not a traceback. (Ctrl-C in the first few hundredths of a second,
while Python itself starts, is Python's own.)"""

import sys


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` is Ctrl-C, or was caused by it: Python 3.11 wraps what a class's
    ``__set_name__`` raises in a RuntimeError, so Ctrl-C landing while a dataclass is being made
    (loading a module) arrives as "Error calling __set_name__ ..." with the KeyboardInterrupt as
    its cause."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return False


def run() -> int:
    try:
        from assistant.cli import main
    except BaseException as error:  # nothing has started yet: nothing to keep
        if not interrupted(error):
            raise
        print("Stopped.", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    raise SystemExit(run())
