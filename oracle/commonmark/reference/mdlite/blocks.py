"""Block structure: lines to a tree of block quotes and leaves (the spec's two-phase strategy, phase one).

Each line first continues the open blocks it matches (a block quote needs its `>`, a paragraph a non-blank
line, ...), then may start new blocks, and what is left of it is added to the innermost leaf, or lazily to an
open paragraph. Tabs are expanded only as far as structure needs (a tab stop every 4 columns); a tab split by
a structural marker leaves its remaining columns to the content as spaces.
"""

import re

from .inlines import parse_inlines
from .tree import Block
from .entities import unescape

LINE_ENDING = re.compile(r"\r\n|\r|\n")
ATX_OPEN = re.compile(r"#{1,6}(?:[ \t]+|$)")
FENCE_OPEN = re.compile(r"`{3,}(?!.*`)|~{3,}")
FENCE_CLOSE = re.compile(r"(?:`{3,}|~{3,})(?=[ \t]*$)")
SETEXT_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")
THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$")
CODE_INDENT = 4

CONTINUED, NOT_CONTINUED, LINE_DONE = 0, 1, 2
NO_START, CONTAINER_STARTED, LEAF_STARTED = 0, 1, 2


class BlockParser:
    def __init__(self):
        self.document = Block("document")
        self.tip = self.document

    # -- the position within the current line ---------------------------------------------------

    def start_line(self, line):
        self.line = line
        self.offset = 0
        self.column = 0
        self.partial_tab = False
        self.line_done = False

    def find_next_nonspace(self):
        i, col = self.offset, self.column
        while i < len(self.line) and self.line[i] in " \t":
            col += 1 if self.line[i] == " " else 4 - col % 4
            i += 1
        self.next_nonspace, self.next_nonspace_column = i, col
        self.indent = col - self.column
        self.indented = self.indent >= CODE_INDENT
        self.blank = i >= len(self.line)

    def char_at_nonspace(self):
        return self.line[self.next_nonspace] if self.next_nonspace < len(self.line) else ""

    def advance_next_nonspace(self):
        self.offset, self.column, self.partial_tab = self.next_nonspace, self.next_nonspace_column, False

    def advance(self, count, columns=False):
        """Move past `count` characters, or `count` columns when a tab may be split."""
        while count > 0 and self.offset < len(self.line):
            if self.line[self.offset] == "\t":
                to_stop = 4 - self.column % 4
                if columns:
                    step = min(to_stop, count)
                    self.partial_tab = to_stop > count
                    self.column += step
                    self.offset += 0 if self.partial_tab else 1
                    count -= step
                    continue
                self.column += to_stop
            else:
                self.column += 1
            self.partial_tab = False
            self.offset += 1
            count -= 1

    # -- opening and closing blocks -----------------------------------------------------------

    def add_child(self, kind):
        while not self.tip.can_contain(kind):
            self.finalize(self.tip)
        block = Block(kind, self.tip)
        self.tip.children.append(block)
        self.tip = block
        return block

    def close_unmatched(self):
        if not self.all_closed:
            while self.old_tip is not self.last_matched:
                parent = self.old_tip.parent
                self.finalize(self.old_tip)
                self.old_tip = parent
            self.all_closed = True

    def finalize(self, block):
        block.open = False
        if block.kind == "paragraph":
            block.content = "\n".join(block.lines).strip(" \t")
        elif block.kind == "code_block" and block.fence is None:
            lines = list(block.lines)
            while lines and not lines[-1].strip(" \t"):
                lines.pop()   # trailing blank lines are not part of an indented code block
            block.content = "".join(line + "\n" for line in lines)
        elif block.kind == "code_block":
            block.content = "".join(line + "\n" for line in block.lines)
        self.tip = block.parent

    def add_line(self):
        text = self.line[self.offset:]
        if self.partial_tab:
            # The columns of a split tab that the marker did not use belong to the content.
            text = " " * (4 - self.column % 4) + self.line[self.offset + 1:]
        self.tip.lines.append(text)

    # -- continuation ---------------------------------------------------------------------------

    def continue_block(self, block):
        self.find_next_nonspace()
        if block.kind == "block_quote":
            if self.indented or self.char_at_nonspace() != ">":
                return NOT_CONTINUED
            self.advance_next_nonspace()
            self.advance(1)
            if self.offset < len(self.line) and self.line[self.offset] in " \t":
                self.advance(1, columns=True)
            return CONTINUED
        if block.kind == "paragraph":
            return NOT_CONTINUED if self.blank else CONTINUED
        if block.kind == "code_block" and block.fence is not None:
            return self.continue_fenced(block)
        if block.kind == "code_block":
            if self.indented:
                self.advance(CODE_INDENT, columns=True)
            elif self.blank:
                self.advance_next_nonspace()
            else:
                return NOT_CONTINUED
            return CONTINUED
        return NOT_CONTINUED   # headings and thematic breaks hold one line

    def continue_fenced(self, block):
        char, length, indentation = block.fence
        m = None if self.indented else FENCE_CLOSE.match(self.line, self.next_nonspace)
        if m and m.group()[0] == char and len(m.group()) >= length:
            self.finalize(block)
            return LINE_DONE
        # A content line loses at most the opening fence's indentation.
        i = indentation
        while i > 0 and self.offset < len(self.line) and self.line[self.offset] in " \t":
            self.advance(1, columns=True)
            i -= 1
        return CONTINUED

    # -- block starts ---------------------------------------------------------------------------

    def start_block_quote(self, container):
        if self.indented or self.char_at_nonspace() != ">":
            return NO_START
        self.advance_next_nonspace()
        self.advance(1)
        if self.offset < len(self.line) and self.line[self.offset] in " \t":
            self.advance(1, columns=True)   # the optional space after `>`
        self.close_unmatched()
        self.add_child("block_quote")
        return CONTAINER_STARTED

    def start_atx_heading(self, container):
        m = None if self.indented else ATX_OPEN.match(self.line, self.next_nonspace)
        if not m:
            return NO_START
        self.close_unmatched()
        heading = self.add_child("heading")
        heading.level = len(m.group().rstrip(" \t"))
        text = self.line[m.end():]
        text = re.sub(r"^[ \t]*#+[ \t]*$", "", text)     # a heading of closing #s alone is empty
        text = re.sub(r"[ \t]+#+[ \t]*$", "", text)      # the optional closing sequence
        heading.content = text.strip(" \t")
        self.line_done = True
        return LEAF_STARTED

    def start_fenced_code(self, container):
        m = None if self.indented else FENCE_OPEN.match(self.line, self.next_nonspace)
        if not m:
            return NO_START
        self.close_unmatched()
        block = self.add_child("code_block")
        block.fence = (m.group()[0], len(m.group()), self.indent)
        block.info = unescape(self.line[m.end():].strip(" \t"))
        self.line_done = True
        return LEAF_STARTED

    def start_setext_heading(self, container):
        if self.indented or container.kind != "paragraph":
            return NO_START
        m = SETEXT_UNDERLINE.match(self.line, self.next_nonspace)
        if not m:
            return NO_START
        self.close_unmatched()
        # The paragraph so far becomes the heading's content.
        container.kind = "heading"
        container.level = 1 if m.group()[0] == "=" else 2
        container.content = "\n".join(container.lines).strip(" \t")
        self.line_done = True
        return LEAF_STARTED

    def start_thematic_break(self, container):
        if self.indented or not THEMATIC_BREAK.match(self.line, self.next_nonspace):
            return NO_START
        self.close_unmatched()
        self.add_child("thematic_break")
        self.line_done = True
        return LEAF_STARTED

    def start_indented_code(self, container):
        # An indented line cannot interrupt a paragraph (it is a lazy or ordinary continuation).
        if not self.indented or self.tip.kind == "paragraph" or self.blank:
            return NO_START
        self.advance(CODE_INDENT, columns=True)
        self.close_unmatched()
        self.add_child("code_block")
        return LEAF_STARTED

    STARTS = (start_block_quote, start_atx_heading, start_fenced_code, start_setext_heading,
              start_thematic_break, start_indented_code)

    # -- one line -------------------------------------------------------------------------------

    def incorporate(self, line):
        self.start_line(line)
        self.old_tip = self.tip
        container = self.document
        while container.children and container.children[-1].open:
            result = self.continue_block(container.children[-1])
            if result == LINE_DONE:
                return
            if result == NOT_CONTINUED:
                break
            container = container.children[-1]
        self.all_closed = container is self.old_tip
        self.last_matched = container
        container = self.open_new_blocks(container)
        if self.line_done:
            return
        if not self.all_closed and not self.blank and self.tip.kind == "paragraph":
            self.add_line()   # a lazy continuation line
            return
        self.close_unmatched()
        if container.accepts_lines():
            self.add_line()
        elif not self.blank:
            self.add_child("paragraph")
            self.advance_next_nonspace()
            self.add_line()

    def open_new_blocks(self, container):
        while not (container.kind == "code_block"):
            self.find_next_nonspace()
            for start in self.STARTS:
                result = start(self, container)
                if result != NO_START:
                    break
            if result == NO_START:
                self.advance_next_nonspace()
                return container
            container = self.tip
            if result == LEAF_STARTED:
                return container
        return container


def parse_blocks(markdown):
    """The document tree of a Markdown text, its paragraphs' and headings' inlines parsed."""
    markdown = markdown.replace("\0", "\ufffd")   # NUL is insecure; the spec replaces it
    lines = LINE_ENDING.split(markdown)
    if lines and lines[-1] == "":
        lines.pop()   # the final line ending ends the last line; it does not start another
    parser = BlockParser()
    for line in lines:
        parser.incorporate(line)
    while parser.tip is not None:
        parser.finalize(parser.tip)
    parse_all_inlines(parser.document)
    return parser.document


def parse_all_inlines(document):
    # A walk with a stack of its own: block quotes nest as deep as a line has `>`s.
    pending = [document]
    while pending:
        block = pending.pop()
        if block.kind in ("paragraph", "heading"):
            block.inlines = parse_inlines(block.content)
        pending.extend(block.children)
