"""Free page reporting, a source of noise in the CPU time of reads on virtual machines.

A guest kernel with free page reporting (virtio-balloon; ``/sys/module/page_reporting``) tells its host which
blocks of free memory it no longer uses, and the host discards them. Every timed read frees memory: the file's
pages are evicted before it, the reader's heap is released after it. With reporting on, the next read's page
cache and heap land on memory the host must fault in and zero again, page by page, in time that shows up
as the reader's own CPU time (not as steal). On a 2-core virtual machine (reporting order 9, reported within
milliseconds) warm reads of one TRUTH3 file took 1.37-1.65 s of user CPU with reporting on and
1.36-1.53 s with it held off; cold reads through the whole instrument, side by side, did not vary less
(benchmarks/host_memory_noise.py, docs/measurement.md "Noise from the host"). So holding it is an option
(``measurement.hold_free_page_reporting``), off by default.

While a measuring job holds it, reporting is held off: the order is raised above the largest free block
the kernel can form, so no block qualifies, and memory is touched once so that the free lists start with
backed pages. The order is restored when the job ends; a job killed before that leaves a note with the
original order, and the next job restores from it. Machines without free page reporting are
left alone, and every record says which case it was (``free_page_reporting``).
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Callable, Iterator
from pathlib import Path

PARAMETERS = Path("/sys/module/page_reporting/parameters")
# The buddy allocator's largest order is 10 (4 MB blocks): at 11 no free block is ever large enough.
_HELD_ORDER = 11
# Memory touched once after the hold, so that the next reads reuse pages the host has backed: more than a
# reader's heap plus the file's page cache at the default study's scale.
_PRETOUCH_BYTES = 1 << 30
_ORIGINAL_NOTE = Path("/tmp/rootparams-page-reporting-order.orig")


def _pretouch(nbytes: int = _PRETOUCH_BYTES) -> None:
    """Write one byte per page of ``nbytes`` of fresh anonymous memory, then give it back to the kernel."""
    page = mmap.PAGESIZE
    with mmap.mmap(-1, nbytes) as mem:
        for offset in range(0, nbytes, page):
            mem[offset] = 1


def _restore(order_file: Path, note: Path, order: str) -> None:
    with contextlib.suppress(OSError):
        order_file.write_text(order + "\n")
        note.unlink(missing_ok=True)


@contextlib.contextmanager
def free_page_reporting_held(
    enabled: bool,
    parameters: Path = PARAMETERS,
    note: Path = _ORIGINAL_NOTE,
    touch: Callable[[], None] = _pretouch,
) -> Iterator[str]:
    """Hold the host's free page reporting off for the duration; yields what was done, for the records."""
    order_file = parameters / "page_reporting_order"
    if not order_file.exists():
        yield "absent"
        return
    try:
        # A note left by a job that was killed while holding it has the order to go back to.
        original = (note if note.exists() else order_file).read_text().strip()
    except OSError as error:
        yield f"not held ({error.filename}: {error.strerror or error})"
        return
    if not enabled:
        if note.exists():  # give the host its reporting back
            _restore(order_file, note, original)
        yield "not held (measurement.hold_free_page_reporting: false)"
        return
    try:
        note.write_text(original + "\n")  # for the next job, should this one be killed
        order_file.write_text(f"{_HELD_ORDER}\n")
    except OSError as error:
        yield f"not held ({order_file}: {error.strerror or error}; needs root)"
        return
    touch()
    try:
        yield f"held (order {original} -> {_HELD_ORDER})"
    finally:
        _restore(order_file, note, original)
