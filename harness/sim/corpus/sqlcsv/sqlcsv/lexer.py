"""Tokens of the query language (section 3)."""
from sqlcsv.failure import bad_input

KEYWORDS = frozenset(
    "SELECT DISTINCT FROM WHERE GROUP BY HAVING ORDER ASC DESC LIMIT OFFSET AS AND OR NOT IS NULL "
    "JOIN INNER LEFT OUTER ON COUNT SUM AVG MIN MAX".split()
)
WHITESPACE = " \t\r\n"
TWO_CHAR_SYMBOLS = ("!=", "<>", "<=", ">=")
ONE_CHAR_SYMBOLS = ",()*.;=<>"
IDENT_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
IDENT_REST = IDENT_START + "0123456789"
DIGITS = "0123456789"


class Token:
    """kind: keyword, ident, string, number, symbol or end; value: the text or the literal's value."""

    def __init__(self, kind, value, text=None):
        self.kind = kind
        self.value = value
        self.text = value if text is None else text

    def __repr__(self):
        return "Token(%s, %r)" % (self.kind, self.value)


def tokenize(query):
    tokens = []
    at = 0
    size = len(query)
    while at < size:
        ch = query[at]
        if ch in WHITESPACE:
            at += 1
        elif ch == "'":
            at = read_string(query, at, tokens)
        elif ch in DIGITS or (ch == "-" and at + 1 < size and query[at + 1] in DIGITS):
            at = read_number(query, at, tokens)
        elif ch in IDENT_START:
            end = at + 1
            while end < size and query[end] in IDENT_REST:
                end += 1
            word = query[at:end]
            if word.upper() in KEYWORDS:
                tokens.append(Token("keyword", word.upper(), word))
            else:
                tokens.append(Token("ident", word))
            at = end
        elif query[at : at + 2] in TWO_CHAR_SYMBOLS:
            tokens.append(Token("symbol", query[at : at + 2]))
            at += 2
        elif ch in ONE_CHAR_SYMBOLS:
            tokens.append(Token("symbol", ch))
            at += 1
        else:
            raise bad_input("unexpected character %r at offset %d" % (ch, at))
    tokens.append(Token("end", None, ""))
    return tokens


def read_string(query, at, tokens):
    pieces = []
    at += 1
    while True:
        close = query.find("'", at)
        if close < 0:
            raise bad_input("string literal is never closed")
        pieces.append(query[at:close])
        if query.startswith("''", close):
            pieces.append("'")
            at = close + 2
            continue
        tokens.append(Token("string", "".join(pieces)))
        return close + 1


def read_number(query, at, tokens):
    end = at + 1
    while end < len(query) and query[end] in DIGITS:
        end += 1
    if end + 1 < len(query) and query[end] == "." and query[end + 1] in DIGITS:
        end += 2
        while end < len(query) and query[end] in DIGITS:
            end += 1
        text = query[at:end]
        tokens.append(Token("number", float(text), text))
    else:
        text = query[at:end]
        tokens.append(Token("number", int(text), text))
    return end
