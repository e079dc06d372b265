"""The ``rootparams`` command: the study and the tools around it, each with its own ``--help``.

    rootparams study [snakemake options]    the study of config/config.yaml (or --configfile yours), then its report
    rootparams advise FILE [options]        how to write this file for this storage: measured, with its uncertainty
    rootparams calibrate FILE [options]     a recipe that clones a real file's content (for the study's formats)
    rootparams inspect FILE|URL [options]   what a ROOT file is: its event data, compression, bytes per branch and kind
    rootparams hosts RESULTS... [--out DIR] the same study from several machines, side by side
    rootparams recompress IN OUT --setting N  a file's event data at another compression, no dictionary needed

``./run study`` is ``rootparams study`` after setting up the environment.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import subprocess
import sys
from pathlib import Path

# The checkout the package was installed from (pip install -e .): the workflow lives beside the package.
CHECKOUT = Path(__file__).resolve().parents[2]

# Every Snakemake start loads every installed executor plugin; the HTCondor bindings then warn that HTCondor is
# not configured, also on machines that never use it. The warning is kept where the HTCondor profile is asked for.
# (htcondor2, which the plugin imports, and the older htcondor say it in other words.)
_CONDOR_WARNING = ",".join(
    f"ignore:{start}:UserWarning"
    for start in (
        "The environment variable CONDOR_CONFIG is unset",
        "Neither the environment variable CONDOR_CONFIG",
    )
)


COMMANDS = ("study", "advise", "inspect", "calibrate", "hosts", "recompress")
# The commands that are a module's main(argv, prog), by module.
_TOOLS = {
    "advise": "commands.advise",
    "inspect": "ownfile.inspection",
    "calibrate": "ownfile.calibrate",
    "hosts": "present.hosts",
    "recompress": "commands.recompress_command",
}


def _snakemake_env(args: list[str]) -> dict[str, str]:
    """The environment of a Snakemake run: the HTCondor bindings' warning filtered out unless ``args`` use the
    HTCondor profile or executor."""
    env = dict(os.environ)
    if not any("htcondor" in a for a in args):
        env["PYTHONWARNINGS"] = ",".join(w for w in (env.get("PYTHONWARNINGS"), _CONDOR_WARNING) if w)
    return env


def study(argv: list[str]) -> int:
    """Runs the workflow (``snakemake --cores 4`` and the given options, with the workflow's own profile), then
    writes the HTML report. Options after ``study`` go to Snakemake as they are."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: rootparams study [snakemake options]\n\n"
            "Runs the study of config/config.yaml (or --configfile yours) with Snakemake on 4 cores and the\n"
            "workflow's profile (profiles/default; --profile profiles/slurm or profiles/htcondor for a cluster),\n"
            "then writes results/report.html. It runs in the checkout the command was installed from (results/\n"
            "beside its Snakefile), or in -d DIR. Every other option is Snakemake's: -n (a dry run: the jobs and\n"
            "the disk the study needs), --cores N, --configfile FILE, --config key=value.\n\n"
            "Outputs: results/recommendations.md (the decision), results/run_summary.md (the machine, the noise,\n"
            "the physics checks), results/tables/ and results/figures/."
        )
        return 0
    snakefile = CHECKOUT / "Snakefile"
    if not snakefile.exists():
        print(
            f"rootparams study: error: no workflow beside the package ({snakefile} does not exist); the study runs "
            "from a checkout of the repository, installed with ./run (or pip install -e .)",
            file=sys.stderr,
        )
        return 2
    env = _snakemake_env(argv)
    run = [sys.executable, "-m", "snakemake", "-s", str(snakefile)]
    code = subprocess.run([*run, "--cores", "4", *argv], cwd=CHECKOUT, env=env).returncode
    if code != 0 or any(a in ("-n", "--dry-run", "--dryrun") for a in argv):
        return code
    code = subprocess.run([*run, "--report", "results/report.html", *argv], cwd=CHECKOUT, env=env).returncode
    if code == 0:
        print(
            "rootparams: done. Tables: results/tables/, run summary: results/run_summary.md, "
            "report: results/report.html"
        )
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="rootparams",
        description="How should ROOT files be written? The ATLAS note's study of ROOT file parameters, "
        "reproduced on your machine, and the tools around it.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser(
        "study", help="run the study (Snakemake underneath), then its HTML report", add_help=False
    )
    commands.add_parser(
        "advise",
        help="how to write this file, for this storage: measured, with its uncertainty",
        add_help=False,
    )
    commands.add_parser("calibrate", help="a recipe that clones a real file's content", add_help=False)
    commands.add_parser(
        "inspect",
        help="what a ROOT file is: TTree or RNTuple, clusters, compression, bytes per branch and kind",
        add_help=False,
    )
    commands.add_parser("hosts", help="the same study from several machines, side by side", add_help=False)
    commands.add_parser(
        "recompress",
        help="a file's TTree or RNTuple at another compression, no class dictionary needed, checked",
        add_help=False,
    )
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "study":
        return study(rest)
    if command in _TOOLS:
        # The command's module only: `rootparams inspect` does not pay for matplotlib, nor --help for anything.
        tool = importlib.import_module(f"rootparams.{_TOOLS[command]}")
        extra = {"env": _snakemake_env(rest)} if command == "advise" else {}
        try:
            return tool.main(rest, prog=f"rootparams {command}", **extra) or 0
        except BrokenPipeError:  # the reader stopped early (| head): not an error, and no traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    close = difflib.get_close_matches(command, COMMANDS, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    parser.error(f"unknown command {command!r}{hint}: choose from {', '.join(COMMANDS)}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
