"""Credentials written into a URL (`http://user:secret@host/v1`, `bolt://neo4j:secret@db:7687`) masked for
whatever prints or logs it: the user and password become `***`, the rest stays readable."""

from __future__ import annotations

import re

MASK = "***"
# scheme://userinfo@ : the userinfo runs to the last @ before the path, so a password holding an @ is masked whole
_USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s?#]*@")


def mask_credentials(text: str) -> str:
    """`text` with the credentials of every URL in it masked (`http://***@host/v1`)."""
    return _USERINFO.sub(lambda m: m[1] + MASK + "@", text) if "@" in text else text
