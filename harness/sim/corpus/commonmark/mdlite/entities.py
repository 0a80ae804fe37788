"""Entity and numeric character references, and backslash escapes outside inline parsing."""
import html.entities
import re

from mdlite.characters import ASCII_PUNCTUATION

REFERENCE = re.compile(r"&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));")
ESCAPE_OR_REFERENCE = re.compile(r"\\([" + re.escape(ASCII_PUNCTUATION) + r"])|" + REFERENCE.pattern)


def decode_reference(match):
    """The text a reference stands for, or None when the name is not an HTML5 entity."""
    hexadecimal, decimal, name = match.group(match.re.groups - 2), match.group(match.re.groups - 1), match.group(match.re.groups)
    if name is not None:
        return html.entities.html5.get(name + ";")
    code = int(hexadecimal, 16) if hexadecimal is not None else int(decimal)
    # Invalid code points and NUL become the replacement character.
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return "\uFFFD"
    return chr(code)


def unescape(text):
    """Backslash escapes and references resolved, as in a fenced code block's info string."""

    def resolve(match):
        if match.group(1) is not None:
            return match.group(1)
        decoded = decode_reference(match)
        return match.group(0) if decoded is None else decoded

    return ESCAPE_OR_REFERENCE.sub(resolve, text)
