"""Argument types shared by `rails` and the function hooks' commands."""

from __future__ import annotations

import argparse
import uuid
from collections.abc import Callable


def uuid_argument(what: str) -> Callable[[str], str]:
    """An argparse type accepting a UUID in any spelling and returning its canonical form."""

    def parse(text: str) -> str:
        try:
            return str(uuid.UUID(text))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {what} (UUID)") from None

    return parse


user_id = uuid_argument("user id")
