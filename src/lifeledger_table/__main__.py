"""``python -m lifeledger_table [--host H] [--port P] [--db FILE] [--cert PEM --key PEM]``:
serve the table app."""

from __future__ import annotations

import argparse

from .server import run


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m lifeledger_table", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default="lifeledger.db")
    parser.add_argument("--cert", help="a TLS certificate (PEM), to serve HTTPS")
    parser.add_argument("--key", help="the certificate's private key (PEM)")
    args = parser.parse_args(argv)
    if (args.cert is None) != (args.key is None):
        parser.error("--cert and --key go together")
    run(args.host, args.port, args.db, cert=args.cert, key=args.key)


if __name__ == "__main__":
    main()
