"""Character classes the spec defines (section "Characters and lines")."""
import unicodedata

ASCII_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


def is_unicode_whitespace(ch):
    """A Zs character, or tab, line feed, form feed or carriage return; none at the edges of a line."""
    return ch == "" or ch in "\t\n\f\r" or unicodedata.category(ch) == "Zs"


def is_unicode_punctuation(ch):
    """A character in a Unicode P (punctuation) or S (symbol) general category."""
    if ch == "":
        return False
    return ch in ASCII_PUNCTUATION or unicodedata.category(ch)[0] in "PS"
