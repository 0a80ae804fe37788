"""Phase 2: a paragraph's or heading's text into inline nodes (section "Inlines")."""
import re

from mdlite.autolinks import match_autolink
from mdlite.characters import ASCII_PUNCTUATION
from mdlite.emphasis import Delimiter, process_emphasis
from mdlite.entities import REFERENCE, decode_reference
from mdlite.flanking import can_open_and_close
from mdlite.nodes import Node

PLAIN_TEXT = re.compile(r"[^\n`\\<&*_]+")
BACKTICKS = re.compile(r"`+")


class InlineParser:
    def __init__(self, block, subject):
        self.block = block
        self.subject = subject
        self.pos = 0
        self.delimiters = None

    def text(self, literal):
        return self.block.append(Node("text", literal))

    def peek(self, at=0):
        at += self.pos
        return self.subject[at] if 0 <= at < len(self.subject) else ""

    def parse(self):
        handlers = {"\n": self.newline, "\\": self.backslash, "`": self.code_span, "<": self.autolink,
                    "&": self.reference, "*": self.delimiter_run, "_": self.delimiter_run}
        while self.pos < len(self.subject):
            handler = handlers.get(self.subject[self.pos])
            if handler is not None:
                handler()
                continue
            match = PLAIN_TEXT.match(self.subject, self.pos)
            self.text(match.group(0))
            self.pos = match.end()
        process_emphasis(self.block, self.delimiters)

    def newline(self):
        self.pos += 1
        last = self.block.last_child
        hard = False
        if last is not None and last.kind == "text" and last.literal.endswith(" "):
            # Two or more spaces before a line ending make a hard line break.
            hard = last.literal.endswith("  ")
            last.literal = last.literal.rstrip(" ")
        self.block.append(Node("linebreak" if hard else "softbreak"))
        while self.peek() == " ":
            self.pos += 1

    def backslash(self):
        following = self.peek(1)
        if following == "\n":
            self.pos += 2
            self.block.append(Node("linebreak"))
            while self.peek() == " ":
                self.pos += 1
        elif following and following in ASCII_PUNCTUATION:
            self.pos += 2
            self.text(following)
        else:
            self.pos += 1
            self.text("\\")

    def code_span(self):
        opening = BACKTICKS.match(self.subject, self.pos).group(0)
        after = self.pos + len(opening)
        for run in BACKTICKS.finditer(self.subject, after):
            if len(run.group(0)) == len(opening):
                content = self.subject[after:run.start()].replace("\n", " ")
                # One space comes off each side, so a span can begin or end with a backtick.
                if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
                    content = content[1:-1]
                self.block.append(Node("code", content))
                self.pos = run.end()
                return
        # No closing run of the same length: the backticks are literal text.
        self.text(opening)
        self.pos = after

    def autolink(self):
        found = match_autolink(self.subject, self.pos)
        if found is None:
            self.pos += 1
            self.text("<")
            return
        destination, label, end = found
        link = self.block.append(Node("link"))
        link.destination = destination
        link.append(Node("text", label))
        self.pos = end

    def reference(self):
        match = REFERENCE.match(self.subject, self.pos)
        decoded = decode_reference(match) if match else None
        if decoded is None:
            self.pos += 1
            self.text("&")
            return
        self.text(decoded)
        self.pos = match.end()

    def delimiter_run(self):
        char = self.subject[self.pos]
        start = self.pos
        while self.peek() == char:
            self.pos += 1
        before = self.subject[start - 1] if start > 0 else ""
        can_open, can_close = can_open_and_close(char, self.pos - start, before, self.peek())
        node = self.text(self.subject[start:self.pos])
        self.delimiters = Delimiter(node, char, self.pos - start, can_open, can_close, self.delimiters)


def parse_inlines(block, subject):
    InlineParser(block, subject).parse()
