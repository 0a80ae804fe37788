"""Inline structure: a paragraph's or heading's text to inlines (the spec's phase two, without links or HTML).

A left-to-right scan: backslash escapes, character references, code spans, autolinks and line breaks become
nodes as they are met; runs of `*` and `_` become text nodes put on a delimiter list, which emphasis.py turns
into emphasis once the scan is over.
"""

import re

from .emphasis import Delimiter, DelimiterList, flanking, process_emphasis
from .entities import ASCII_PUNCTUATION, ENTITY, decode_entity, normalize_url
from .tree import Inline

SPECIAL = re.compile(r"[\\`&<*_\n]")
BACKTICKS = re.compile(r"`+")
URI_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^<>\x00-\x20]*)>")
EMAIL_AUTOLINK = re.compile(
    r"<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~\-]+@[a-zA-Z0-9](?:[a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])?)*)>")


class InlineScanner:
    def __init__(self, text):
        self.text = text
        self.pos = 0
        self.nodes = []
        self.delimiters = DelimiterList()

    def add_text(self, literal):
        self.nodes.append(Inline("text", literal))

    def scan(self):
        handlers = {"\\": self.backslash, "`": self.code_span, "&": self.entity, "<": self.autolink,
                    "*": self.delimiter_run, "_": self.delimiter_run, "\n": self.newline}
        while self.pos < len(self.text):
            m = SPECIAL.search(self.text, self.pos)
            end = m.start() if m else len(self.text)
            if end > self.pos:
                self.add_text(self.text[self.pos:end])
                self.pos = end
            if m:
                handlers[m.group()]()
        process_emphasis(self.nodes, self.delimiters)
        return self.nodes

    def backslash(self):
        nxt = self.text[self.pos + 1:self.pos + 2]
        if nxt == "\n":
            self.pos += 1
            self.line_break(hard=True)
        elif nxt and nxt in ASCII_PUNCTUATION:
            self.add_text(nxt)
            self.pos += 2
        else:
            self.add_text("\\")
            self.pos += 1

    def entity(self):
        m = ENTITY.match(self.text, self.pos)
        decoded = decode_entity(m) if m else None
        if decoded is None:
            self.add_text("&")
            self.pos += 1
        else:
            self.add_text(decoded)
            self.pos = m.end()

    def code_span(self):
        opening = BACKTICKS.match(self.text, self.pos).group()
        start = self.pos + len(opening)
        for closing in BACKTICKS.finditer(self.text, start):
            if len(closing.group()) == len(opening):
                content = self.text[start:closing.start()].replace("\n", " ")
                # One space each side is stripped, so a span can begin or end with a backtick.
                if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
                    content = content[1:-1]
                self.nodes.append(Inline("code", content))
                self.pos = closing.end()
                return
        self.add_text(opening)   # no closer of the same length: the backticks are literal
        self.pos = start

    def autolink(self):
        m = URI_AUTOLINK.match(self.text, self.pos)
        if m:
            destination = normalize_url(m.group(1))
        else:
            m = EMAIL_AUTOLINK.match(self.text, self.pos)
            destination = "mailto:" + normalize_url(m.group(1)) if m else None
        if m is None:
            self.add_text("<")
            self.pos += 1
            return
        self.nodes.append(Inline("autolink", children=[Inline("text", m.group(1))], destination=destination))
        self.pos = m.end()

    def delimiter_run(self):
        char = self.text[self.pos]
        end = self.pos
        while end < len(self.text) and self.text[end] == char:
            end += 1
        before = self.text[self.pos - 1] if self.pos > 0 else "\n"
        after = self.text[end] if end < len(self.text) else "\n"
        can_open, can_close = flanking(char, before, after)
        node = Inline("text", self.text[self.pos:end])
        self.nodes.append(node)
        self.delimiters.append(Delimiter(node, char, end - self.pos, can_open, can_close))
        self.pos = end

    def newline(self):
        last = self.nodes[-1] if self.nodes else None
        hard = False
        if last is not None and last.kind == "text":
            trailing = len(last.literal) - len(last.literal.rstrip(" "))
            hard = trailing >= 2
            last.literal = last.literal.rstrip(" ")
        self.line_break(hard)

    def line_break(self, hard):
        """At a line ending (self.pos on it): a break node, and the next line's initial spaces skipped."""
        self.nodes.append(Inline("linebreak" if hard else "softbreak"))
        self.pos += 1
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1


def parse_inlines(text):
    """The inline nodes of a block's raw text."""
    return InlineScanner(text).scan()
