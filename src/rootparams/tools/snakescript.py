"""Running package code from a Snakemake ``script:``: log to the rule's log file, fail with a clear message.

Errors that the package raises on purpose (rootparams.errors.UserError: bad file, eviction impossible, no
monitor, ...) carry a message written for the user; they are printed without a traceback. Anything else is a
bug: full traceback.
"""

from __future__ import annotations

import inspect
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from rootparams.errors import UserError

# OSError too: the system's message already names the file (a full disk, a missing or unreadable file).
_USER_ERRORS = (UserError, OSError)


def run_logged(snakemake: Any, main: Callable[..., Any]) -> None:
    """Run ``main(snakemake)``, or ``main(snakemake, say)`` if it takes a second argument: ``say`` writes a
    line to the job's log and to the console at once (for what a user watching the run should see)."""
    log_path = snakemake.log[0] if snakemake.log else None
    log = open(log_path, "w") if log_path else sys.stderr  # noqa: SIM115 - kept open for the job's lifetime

    def say(text: str) -> None:
        print(text, file=log, flush=True)
        if log is not sys.stderr:
            print(text, file=sys.stderr, flush=True)

    start = time.time()
    try:
        log.write(f"rule {snakemake.rule}, wildcards {dict(snakemake.wildcards)}\n")
        if len(inspect.signature(main).parameters) > 1:
            main(snakemake, say)
        else:
            main(snakemake)
        log.write(f"done in {time.time() - start:.2f} s\n")
    except _USER_ERRORS as e:
        say(f"error in rule {snakemake.rule} ({dict(snakemake.wildcards)}): {e}")
        sys.exit(1)
    except Exception:
        say(
            f"unexpected error in rule {snakemake.rule} ({dict(snakemake.wildcards)}):\n{traceback.format_exc()}"
        )
        sys.exit(1)
    finally:
        if log is not sys.stderr:
            log.close()
