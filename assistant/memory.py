"""Keeping the process small on a 1-4 GB Raspberry Pi (glibc's allocator, via ctypes).

glibc gives every thread that allocates its own malloc arena (up to eight per core), and
memory freed in one arena is not reused by the others: with the microphone, speaker, Piper
and Whisper threads of hands-free play that fragmentation was a quarter of the peak
(``python -m bench.bench_memory``: 462 MB with the default, 347 MB with two arenas). Both
helpers do nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import functools

#: glibc's mallopt() parameter for the arena count (malloc.h).
M_ARENA_MAX = -8
ARENAS = 2


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt  # noqa: B018  (glibc has it; others have no libc.so.6 or no mallopt)
        libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """At most ``arenas`` malloc arenas for the threads started from now on (call it before they
    start). True when the C library took the setting."""
    libc = _libc()
    return libc is not None and bool(libc.mallopt(M_ARENA_MAX, arenas))


def give_back_memory() -> None:
    """Return freed memory at the top of the heap and in whole free pages to the system (after
    loading a model: its float weights turned int8 leave ~80 MB free that glibc would keep)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
