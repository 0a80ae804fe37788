"""Phase 1 (appendix "A parsing strategy"): lines into a tree of blocks, then inlines into each."""
import re

from mdlite.block_starts import BLOCK_STARTS
from mdlite.cursor import Cursor
from mdlite.inlines import parse_inlines
from mdlite.nodes import Node

LINE_ENDING = re.compile(r"\r\n|\r|\n")
CLOSING_FENCE = re.compile(r"(`{3,}|~{3,})[ \t]*$")
ACCEPTS_LINES = ("paragraph", "code_block")


class BlockParser:
    def __init__(self):
        self.document = Node("document")
        self.tip = self.document
        self.previous_tip = self.document
        self.deepest_match = self.document
        self.unmatched_closed = True

    def add_child(self, kind, container):
        # Only a block quote or the document holds other blocks.
        while container.kind not in ("document", "block_quote"):
            container = self.finalize(container)
        node = container.append(Node(kind))
        self.tip = node
        return node

    def close_unmatched(self):
        """Finalizes the blocks the current line did not continue, innermost first."""
        if self.unmatched_closed:
            return
        block = self.previous_tip
        while block is not self.deepest_match:
            above = block.parent
            self.finalize(block)
            block = above
        self.previous_tip = block
        self.unmatched_closed = True

    def finalize(self, block):
        block.open = False
        if block.kind == "code_block" and block.fence_char:
            # The opening fence's line, whose info string was kept when the block started.
            block.lines = block.lines[1:]
        elif block.kind == "code_block":
            while block.lines and not block.lines[-1].strip(" \t"):
                block.lines.pop()
        self.tip = block.parent
        return block.parent

    def continues(self, block, cursor):
        """Whether an open block goes on in this line: True, False, or "done" (line consumed)."""
        if block.kind == "block_quote":
            if cursor.indented or cursor.peek(cursor.next_nonspace) != ">":
                return False
            cursor.advance_to_nonspace()
            cursor.advance(1)
            if cursor.peek() in (" ", "\t"):
                cursor.advance(1, columns=True)
            return True
        if block.kind == "code_block" and block.fence_char:
            return self.fence_continues(block, cursor)
        if block.kind == "code_block":
            if cursor.indented:
                cursor.advance(4, columns=True)
            elif cursor.blank:
                cursor.advance_to_nonspace()
            else:
                return False
            return True
        if block.kind == "paragraph":
            return not cursor.blank
        return False

    def fence_continues(self, block, cursor):
        match = None if cursor.indented else CLOSING_FENCE.match(cursor.line, cursor.next_nonspace)
        if match and match.group(1)[0] == block.fence_char and len(match.group(1)) >= block.fence_length:
            self.finalize(block)
            return "done"
        # Content lines lose as much indentation as the opening fence had.
        skip = block.fence_offset
        while skip > 0 and cursor.peek() in (" ", "\t"):
            cursor.advance(1, columns=True)
            skip -= 1
        return True

    def descend(self, cursor):
        """The deepest open block this line continues; None when the line was consumed."""
        container = self.document
        while container.children and container.last_child.open:
            child = container.last_child
            cursor.find_next_nonspace()
            verdict = self.continues(child, cursor)
            if verdict == "done":
                return None
            if not verdict:
                break
            container = child
        return container

    def incorporate(self, line):
        cursor = Cursor(line)
        self.previous_tip = self.tip
        container = self.descend(cursor)
        if container is None:
            return
        # A block that stays open past this line is the last matched one; the rest close lazily.
        self.unmatched_closed = container is self.previous_tip
        self.deepest_match = container
        matched_leaf = container.kind == "code_block"
        while not matched_leaf:
            cursor.find_next_nonspace()
            started = None
            for start in BLOCK_STARTS:
                started = start(self, cursor, container)
                if started is not None:
                    break
            if started is None:
                cursor.advance_to_nonspace()
                break
            container = started
            if container.kind != "block_quote":
                matched_leaf = True
        self.add_line(container, cursor)

    def add_line(self, container, cursor):
        if not self.unmatched_closed and not cursor.blank and self.tip.kind == "paragraph":
            # A lazy continuation line (section "Block quotes"): it extends the open paragraph.
            self.tip.lines.append(cursor.rest())
            return
        self.close_unmatched()
        if container.kind in ACCEPTS_LINES:
            if container.kind == "code_block" or not cursor.blank:
                container.lines.append(cursor.rest())
        elif container.kind in ("heading", "thematic_break"):
            pass
        elif not cursor.blank:
            cursor.advance_to_nonspace()
            paragraph = self.add_child("paragraph", container)
            paragraph.lines.append(cursor.rest())

    def finish(self):
        while self.tip is not None:
            self.finalize(self.tip)
        return self.document


def fill_inlines(block):
    if block.kind in ("paragraph", "heading"):
        parse_inlines(block, "\n".join(block.lines).strip(" \t\n"))
    for child in block.children:
        fill_inlines(child)


def parse_blocks(markdown):
    """The document tree of a Markdown text, its paragraphs and headings holding inlines."""
    parser = BlockParser()
    lines = LINE_ENDING.split(markdown.replace("\0", "\uFFFD"))
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        parser.incorporate(line)
    document = parser.finish()
    fill_inlines(document)
    return document
