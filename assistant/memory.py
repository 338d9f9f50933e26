"""Keeping the process small on a 1-4 GB Raspberry Pi (glibc's allocator, via ctypes).

glibc gives threads that allocate their own malloc arenas (up to eight per core), and memory
freed in one arena is not reused by the others; hands-free play has microphone, speaker,
Piper and Whisper threads. Two arenas bound that fragmentation (on this machine the measured
peak, ``python -m bench.bench_memory``, varies by tens of MB from run to run either way).
Both helpers do nothing where the C library is not glibc.
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
