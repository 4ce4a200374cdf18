"""``python -m lifeledger_table [--host H] [--port P] [--db FILE]``: serve the table app."""

from __future__ import annotations

import argparse

from .server import run


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m lifeledger_table", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default="lifeledger.db")
    args = parser.parse_args(argv)
    run(args.host, args.port, args.db)


if __name__ == "__main__":
    main()
