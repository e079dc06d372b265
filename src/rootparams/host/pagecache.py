"""Page-cache control: evict a file, and verify with mincore(2) how much of it is still in memory.

As root, eviction is the paper's: ``sync`` then ``echo 3 > /proc/sys/vm/drop_caches`` (everything goes).
Otherwise, the file's own pages: ``fdatasync`` (dirty pages cannot be dropped) then
``posix_fadvise(POSIX_FADV_DONTNEED)``. Either way the result is verified, never assumed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rootparams.errors import UserError

_DROP_CACHES = Path("/proc/sys/vm/drop_caches")
_PAGE_SIZE = mmap.PAGESIZE


class EvictionError(UserError):
    """The file could not be shown to be out of the page cache."""


@dataclass(frozen=True)
class Residency:
    resident_pages: int
    total_pages: int

    @property
    def fraction(self) -> float:
        return self.resident_pages / self.total_pages if self.total_pages else 0.0


_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
_libc.mmap.restype = ctypes.c_void_p
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
_libc.mincore.restype = ctypes.c_int
_MAP_FAILED = ctypes.c_void_p(-1).value


def residency(path: str | Path) -> Residency:
    """How many of the file's pages are in the page cache now (mmap + mincore; reads no data)."""
    flags = _page_flags(path)
    return Residency(sum(b & 1 for b in flags), len(flags))


def resident_pages_in(path: str | Path, ranges: Iterable[tuple[int, int]]) -> int:
    """How many of the pages that hold the byte ranges ``(offset, length)`` of the file are in the page cache now
    (each page counted once): whether the bytes a read is about to fetch are cold, whatever else is resident."""
    flags = _page_flags(path)
    return sum(flags[i] & 1 for i in pages_of(ranges) if i < len(flags))


def pages_of(ranges: Iterable[tuple[int, int]]) -> set[int]:
    """The indices of the pages that hold the byte ranges ``(offset, length)``, each page once."""
    return {
        i
        for offset, length in ranges
        for i in range(offset // _PAGE_SIZE, (offset + length + _PAGE_SIZE - 1) // _PAGE_SIZE)
    }


def _page_flags(path: str | Path) -> bytes:
    """mincore's byte per page of the whole file (bit 0: resident)."""
    size = os.path.getsize(path)
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    if size == 0:
        return b""
    fd = os.open(path, os.O_RDONLY)
    try:
        address = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address in (None, _MAP_FAILED):
            err = ctypes.get_errno()
            raise OSError(err, f"mmap failed on {path}: {os.strerror(err)}")
        try:
            vec = (ctypes.c_ubyte * pages)()
            if _libc.mincore(ctypes.c_void_p(address), size, vec) != 0:
                err = ctypes.get_errno()
                raise OSError(err, f"mincore failed on {path}: {os.strerror(err)}")
            flags = bytes(vec)
        finally:
            _libc.munmap(ctypes.c_void_p(address), size)
    finally:
        os.close(fd)
    return flags


def evict(path: str | Path, system_wide: bool = True) -> str:
    """Drop ``path`` from the page cache; return the method used ("drop_caches" or "fadvise").

    ``system_wide`` (as root) also drops every other cached page, the paper's method; without it only the
    file's own pages go, which keeps the reader's libraries in memory between repetitions."""
    with open(path, "rb") as f:  # fdatasync works on a read-only descriptor; user files may be read-only
        os.fdatasync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    if system_wide and can_drop_caches():
        os.sync()
        _DROP_CACHES.write_text("3\n")
        return "drop_caches"
    return "fadvise"


def can_drop_caches() -> bool:
    return os.geteuid() == 0 and os.access(_DROP_CACHES, os.W_OK)


# Waits before the second and later evictions. A page still under read I/O (locked) cannot be dropped: the
# readahead of a reader that has just exited can still be in flight, and behind a cgroup throttle it lasts longer
# (found when a storage primitive's fio run on the hdd profile left 11 MB resident through three evictions in a row).
# Waiting only delays a retry; the file is still verified cold with mincore before anything is read.
_EVICTION_RETRY_WAITS_SECONDS = (0.2, 1.0)


def make_cold(path: str | Path, attempts: int = 3, system_wide: bool = True) -> tuple[str, Residency]:
    """Evict and verify; raise EvictionError if pages stay resident after ``attempts`` tries, the later ones after
    a wait for I/O in flight to end (EVICTION_RETRY_WAITS_SECONDS)."""
    method, state = "none", residency(path)
    for attempt in range(attempts):
        if attempt:
            waits = _EVICTION_RETRY_WAITS_SECONDS
            time.sleep(waits[min(attempt - 1, len(waits) - 1)])
        method = evict(path, system_wide)
        state = residency(path)
        if state.resident_pages == 0:
            return method, state
    raise EvictionError(
        f"{path}: {state.resident_pages} of {state.total_pages} pages ({state.fraction:.1%}) are still in the "
        f"page cache after {attempts} evictions with {method} over "
        f"{sum(_EVICTION_RETRY_WAITS_SECONDS[: attempts - 1]):g} s. A cold read cannot be measured. Causes: another "
        "process keeps reading or mapping the file, or the filesystem ignores eviction (tmpfs, some network "
        "filesystems). Set measurement.cache_state: warm to measure warm reads instead, labelled as such."
    )


def make_warm(path: str | Path) -> Residency:
    """Read the whole file once so that the timed read finds it in memory."""
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass
    return residency(path)
