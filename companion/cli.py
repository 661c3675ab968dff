"""`companion <verb>`: one entry point; each area registers its verbs from
``companion.commands.<area>`` and imports its heavy modules only inside the handler."""

from __future__ import annotations

import argparse
import importlib
import sys

# Areas whose module is missing are skipped, so a partial checkout still runs.
_AREAS = ("rules", "synth", "vision", "web")


class UsageError(Exception):
    """Bad command-line input: printed as one clear line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="Ganjifa table companion: sees, referees, keeps score.")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    sub.required = True
    for area in _AREAS:
        try:
            module = importlib.import_module(f"companion.commands.{area}")
        except ModuleNotFoundError as e:
            if e.name != f"companion.commands.{area}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except UsageError as e:
        print(f"companion {args.verb}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `companion simulate ... | head` is fine
        return 0


if __name__ == "__main__":
    sys.exit(main())
