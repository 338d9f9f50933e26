"""Ctrl-C, however it arrives (no imports: ``assistant.__main__`` reads it before the CLI loads)."""


def interrupted(error: BaseException | None) -> bool:
    """Whether ``error`` is Ctrl-C, or was caused by it: Python 3.11 wraps what a class's
    ``__set_name__`` raises in a RuntimeError, so Ctrl-C landing while a dataclass is being made
    (loading a module) arrives as "Error calling __set_name__ ..." with the KeyboardInterrupt as
    its cause."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False
