"""``python -m lifeledger_table [--host H] [--port P] [--db FILE] [--cert PEM --key PEM]
[--trusted-proxy ADDR_OR_CIDR ...]``: serve the table app, as ``lifeledger serve`` does."""

from __future__ import annotations

import sys

from lifeledger import cli


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted; the options are ``lifeledger serve``'s."""
    return cli.main(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
