"""Character references, backslash escapes and HTML escaping: the spec's rules for turning source text into characters."""

import html.entities
import re

ASCII_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
# Named references need their semicolon; html5 also lists legacy names without one, which CommonMark does not accept.
NAMED = {name[:-1]: text for name, text in html.entities.html5.items() if name.endswith(";")}
ENTITY = re.compile(r"&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}));")
REPLACEMENT = "\ufffd"


def decode_entity(match):
    """The text a matched reference stands for, or None when it names nothing (then it stays literal)."""
    hex_digits, dec_digits, name = match.groups()
    if name is not None:
        return NAMED.get(name)
    code = int(hex_digits, 16) if hex_digits is not None else int(dec_digits)
    # NUL, surrogates and values past Unicode are not characters a document may hold.
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return REPLACEMENT
    return chr(code)


def unescape(text):
    """Backslash escapes and references resolved, as in a fenced code block's info string."""
    out = []
    pos = 0
    while pos < len(text):
        c = text[pos]
        if c == "\\" and pos + 1 < len(text) and text[pos + 1] in ASCII_PUNCTUATION:
            out.append(text[pos + 1])
            pos += 2
            continue
        if c == "&":
            m = ENTITY.match(text, pos)
            decoded = decode_entity(m) if m else None
            if decoded is not None:
                out.append(decoded)
                pos = m.end()
                continue
        out.append(c)
        pos += 1
    return "".join(out)


def escape_html(text):
    """Text made safe inside an element or a double-quoted attribute."""
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


# Characters a URL keeps as they are (besides ASCII letters and digits); anything else is percent-encoded as UTF-8.
URL_SAFE = set(";/?:@&=+$,-_.!~*'()#")
HEX = set("0123456789abcdefABCDEF")


def normalize_url(url):
    """An autolink's destination percent-encoded, keeping escapes already written (`%20`)."""
    out = []
    for i, c in enumerate(url):
        if (c.isascii() and c.isalnum()) or c in URL_SAFE:
            out.append(c)
        elif c == "%" and url[i + 1:i + 2] in HEX and url[i + 2:i + 3] in HEX and len(url) >= i + 3:
            out.append(c)
        else:
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", errors="replace"))
    return "".join(out)
