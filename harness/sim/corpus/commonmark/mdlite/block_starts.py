"""Recognising the start of a block at the cursor (section "Leaf blocks", "Block quotes")."""
import re

from mdlite.entities import unescape
from mdlite.nodes import Node

ATX_OPENING = re.compile(r"#{1,6}(?:[ \t]+|$)")
FENCE_OPENING = re.compile(r"`{3,}(?!.*`)|~{3,}")
SETEXT_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")
THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$")


def block_quote(parser, cursor, container):
    if cursor.indented or cursor.peek(cursor.next_nonspace) != ">":
        return None
    cursor.advance_to_nonspace()
    cursor.advance(1)
    if cursor.peek() in (" ", "\t"):
        cursor.advance(1, columns=True)
    parser.close_unmatched()
    return parser.add_child("block_quote", container)


def atx_heading(parser, cursor, container):
    if cursor.indented:
        return None
    rest = cursor.line[cursor.next_nonspace:]
    match = ATX_OPENING.match(rest)
    if not match:
        return None
    parser.close_unmatched()
    heading = parser.add_child("heading", container)
    heading.level = match.group(0).strip().count("#")
    content = rest[match.end():]
    # An optional closing sequence needs a space before it, unless the heading is only #s.
    content = re.sub(r"^[ \t]*#+[ \t]*$", "", content)
    content = re.sub(r"[ \t]+#+[ \t]*$", "", content)
    heading.lines = [content]
    cursor.offset = len(cursor.line)
    return heading


def fenced_code(parser, cursor, container):
    if cursor.indented:
        return None
    rest = cursor.line[cursor.next_nonspace:]
    match = FENCE_OPENING.match(rest)
    if not match:
        return None
    parser.close_unmatched()
    block = parser.add_child("code_block", container)
    block.fence_char = match.group(0)[0]
    block.fence_length = len(match.group(0))
    block.fence_offset = cursor.indent
    block.info = unescape(rest[match.end():].strip(" \t"))
    cursor.offset = len(cursor.line)
    return block


def setext_heading(parser, cursor, container):
    if cursor.indented or container.kind != "paragraph":
        return None
    match = SETEXT_UNDERLINE.match(cursor.line[cursor.next_nonspace:])
    if not match:
        return None
    parser.close_unmatched()
    heading = Node("heading")
    heading.level = 1 if match.group(0)[0] == "=" else 2
    heading.lines = container.lines
    parent = container.parent
    parent.children[parent.children.index(container)] = heading
    heading.parent = parent
    parser.tip = heading
    cursor.offset = len(cursor.line)
    return heading


def thematic_break(parser, cursor, container):
    if cursor.indented or not THEMATIC_BREAK.match(cursor.line[cursor.next_nonspace:]):
        return None
    parser.close_unmatched()
    node = parser.add_child("thematic_break", container)
    cursor.offset = len(cursor.line)
    return node


def indented_code(parser, cursor, container):
    # An indented code block cannot interrupt a paragraph.
    if not cursor.indented or parser.tip.kind == "paragraph" or cursor.blank:
        return None
    cursor.advance(4, columns=True)
    parser.close_unmatched()
    return parser.add_child("code_block", container)


# In this order: a setext underline wins over a thematic break of `-`.
BLOCK_STARTS = (block_quote, atx_heading, fenced_code, setext_heading, thematic_break, indented_code)
