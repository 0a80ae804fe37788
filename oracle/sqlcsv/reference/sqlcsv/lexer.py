"""Turn query text into tokens (spec section 3).

Hand-written rather than regex-driven so that the character classes are
exactly the ASCII ones the spec names (a regex `\\d` would also accept
non-ASCII digits).
"""

from sqlcsv.errors import usage_error

KEYWORDS = frozenset(
    """SELECT DISTINCT FROM WHERE GROUP BY HAVING ORDER ASC DESC LIMIT OFFSET
    AS AND OR NOT IS NULL JOIN INNER LEFT OUTER ON COUNT SUM AVG MIN MAX""".split()
)
AGGREGATES = frozenset(("COUNT", "SUM", "AVG", "MIN", "MAX"))

TWO_CHAR_SYMBOLS = ("!=", "<>", "<=", ">=")
ONE_CHAR_SYMBOLS = ",()*.;=<>"
WHITESPACE = " \t\r\n"
DIGITS = "0123456789"

# Token kinds.
KW, IDENT, STR, NUM, SYM, END = "keyword", "identifier", "string", "number", "symbol", "end"


class Token:
    __slots__ = ("kind", "value", "text", "pos")

    def __init__(self, kind, value, text, pos):
        self.kind = kind    # one of the kinds above
        self.value = value  # keyword in upper case, identifier, str, int/float, symbol
        self.text = text    # source spelling (used for numbers in LIMIT checks)
        self.pos = pos

    def describe(self):
        return "end of query" if self.kind == END else repr(self.text)


def _is_word_start(ch):
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ch == "_"


def _is_word_char(ch):
    return _is_word_start(ch) or ch in DIGITS


def tokenize(text):
    tokens = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in WHITESPACE:
            i += 1
        elif _is_word_start(ch):
            start = i
            while i < n and _is_word_char(text[i]):
                i += 1
            word = text[start:i]
            upper = word.upper()
            if upper in KEYWORDS:
                tokens.append(Token(KW, upper, word, start))
            else:
                tokens.append(Token(IDENT, word, word, start))
        elif ch in DIGITS or (ch == "-" and i + 1 < n and text[i + 1] in DIGITS):
            tokens.append(_read_number(text, i))
            i += len(tokens[-1].text)
        elif ch == "'":
            token, i = _read_string(text, i)
            tokens.append(token)
        elif text[i:i + 2] in TWO_CHAR_SYMBOLS:
            tokens.append(Token(SYM, text[i:i + 2], text[i:i + 2], i))
            i += 2
        elif ch in ONE_CHAR_SYMBOLS:
            tokens.append(Token(SYM, ch, ch, i))
            i += 1
        else:
            raise usage_error("unexpected character %r at offset %d" % (ch, i))
    tokens.append(Token(END, None, "", n))
    return tokens


def _read_number(text, start):
    n = len(text)
    i = start + 1 if text[start] == "-" else start
    while i < n and text[i] in DIGITS:
        i += 1
    # A '.' makes a decimal literal only when a digit follows it; otherwise
    # the '.' is left as a symbol and the parser will reject it.
    if i + 1 < n and text[i] == "." and text[i + 1] in DIGITS:
        i += 1
        while i < n and text[i] in DIGITS:
            i += 1
        spelling = text[start:i]
        return Token(NUM, float(spelling), spelling, start)
    spelling = text[start:i]
    return Token(NUM, int(spelling), spelling, start)


def _read_string(text, start):
    parts = []
    i, n = start + 1, len(text)
    while True:
        close = text.find("'", i)
        if close < 0:
            raise usage_error("unterminated string literal starting at offset %d" % start)
        parts.append(text[i:close])
        # '' inside a literal is one quote character, not the end.
        if close + 1 < n and text[close + 1] == "'":
            parts.append("'")
            i = close + 2
            continue
        value = "".join(parts)
        return Token(STR, value, text[start:close + 1], start), close + 1
