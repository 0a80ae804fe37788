"""Autolinks (section "Autolinks"): absolute URIs and email addresses in angle brackets."""
import re

SCHEME = r"[A-Za-z][A-Za-z0-9.+-]{1,31}"
URI_BODY = r"[^<>\x00-\x20]*"
URI = re.compile("<(" + SCHEME + ":" + URI_BODY + ")>")
EMAIL = re.compile(
    r"<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>")


def match_autolink(subject, pos):
    """(destination, label, end) of an autolink at `pos`, or None."""
    match = URI.match(subject, pos)
    if match:
        return match.group(1), match.group(1), match.end()
    match = EMAIL.match(subject, pos)
    if match:
        return "mailto:" + match.group(1), match.group(1), match.end()
    return None
