"""``python -m assistant`` and the ``assistant`` command (pyproject.toml's script): the CLI,
loaded inside a guard, so Ctrl-C while it is still loading ends as it does later, with one
line and exit status 130, not a traceback. (Ctrl-C in the first few hundredths of a second,
while Python itself starts, is Python's own.)"""

import sys


def run() -> int:
    try:
        from assistant.cli import main
    except BaseException as error:  # nothing has started yet: nothing to keep
        from assistant.interrupt import interrupted

        if not interrupted(error):
            raise
        print("Stopped.", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    raise SystemExit(run())
