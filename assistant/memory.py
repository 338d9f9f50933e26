"""Keeping the process small on a 1-4 GB Raspberry Pi (glibc's allocator, via ctypes).

glibc gives threads that allocate their own malloc arenas (up to eight per core), and memory
freed in one arena is not reused by the others; hands-free play has microphone, speaker,
Piper and Whisper threads. Two arenas bound that fragmentation (on this machine the measured
peak, ``python -m bench.bench_memory``, varies by tens of MB from run to run either way).
The helpers do nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import functools

#: glibc's mallopt() parameters (malloc.h): the arena count, and the size from which a block
#: gets its own mapping.
M_ARENA_MAX = -8
M_MMAP_THRESHOLD = -3
ARENAS = 2
#: Whisper's beam search takes and frees ~100 MB of 4-40 MB buffers per utterance. glibc's default
#: threshold starts at 128 KiB but rises to the largest block freed (up to 32 MiB), after which
#: those buffers come from the heap and ~20 MB of it stays there between utterances, under the
#: next one's peak. Fixed at 4 MiB they are mapped and unmapped each time (no slower measured).
MMAP_THRESHOLD = 4 << 20


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


def map_big_blocks(threshold: int = MMAP_THRESHOLD) -> bool:
    """Blocks of ``threshold`` bytes or more get their own mapping, returned to the system when
    freed. True when the C library took the setting."""
    libc = _libc()
    return libc is not None and bool(libc.mallopt(M_MMAP_THRESHOLD, threshold))


def give_back_memory() -> None:
    """Return freed memory at the top of the heap and in whole free pages to the system (after
    loading a model: its float weights turned int8 leave ~80 MB free that glibc would keep)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
