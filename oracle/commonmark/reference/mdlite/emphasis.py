"""Emphasis and strong emphasis: delimiter runs and the spec's "process emphasis" procedure (Appendix A)."""

import unicodedata

from .tree import Inline


def is_whitespace(c):
    """Unicode whitespace: category Zs, tab, line feed, form feed, carriage return (line ends count too)."""
    return c in "\t\n\f\r" or unicodedata.category(c) == "Zs"


def is_punctuation(c):
    """Unicode punctuation: categories P (punctuation) and S (symbol)."""
    return unicodedata.category(c)[0] in "PS"


def flanking(char, before, after):
    """(can open, can close) of a run of `char` between the characters `before` and `after`."""
    left = not is_whitespace(after) and (
        not is_punctuation(after) or is_whitespace(before) or is_punctuation(before))
    right = not is_whitespace(before) and (
        not is_punctuation(before) or is_whitespace(after) or is_punctuation(after))
    if char == "*":
        return left, right
    # `_` cannot open or close inside a word (rules 2 and 4).
    return left and (not right or is_punctuation(before)), right and (not left or is_punctuation(after))


class Delimiter:
    """One run of `*` or `_` on the delimiter list, a doubly linked list with a sentinel head."""

    def __init__(self, node, char, count, can_open, can_close):
        self.node, self.char = node, char
        self.count = self.original = count
        self.can_open, self.can_close = can_open, can_close
        self.prev = self.next = None

    def unlink(self):
        self.prev.next = self.next
        if self.next is not None:
            self.next.prev = self.prev


class DelimiterList:
    """The sentinel head of the delimiter list; `last` is where the next run is appended."""

    def __init__(self):
        self.next = None
        self.prev = None
        self.last = self

    def append(self, delimiter):
        delimiter.prev = self.last
        self.last.next = delimiter
        self.last = delimiter



def odd_match(opener, closer):
    """Rule 9/10's multiple-of-3 rule: a run that can both open and close limits what it pairs with."""
    both = opener.can_close or closer.can_open
    total = opener.original + closer.original
    return both and total % 3 == 0 and not (opener.original % 3 == 0 and closer.original % 3 == 0)


def find_opener(closer, bottom):
    opener = closer.prev
    while not isinstance(opener, DelimiterList) and opener is not bottom:
        if opener.char == closer.char and opener.can_open and not odd_match(opener, closer):
            return opener
        opener = opener.prev
    return None


class Chain:
    """The inlines being paired, as a doubly linked list: wrapping a span in emphasis costs the span, not the line."""

    def __init__(self, nodes):
        self.head, self.tail = Inline("text"), Inline("text")
        previous = self.head
        for node in nodes + [self.tail]:
            previous.next_sibling, node.prev_sibling = node, previous
            previous = node

    def cut_between(self, first, last):
        """The nodes strictly between `first` and `last`, taken out of the chain."""
        inner = []
        node = first.next_sibling
        while node is not last:
            inner.append(node)
            node = node.next_sibling
        first.next_sibling, last.prev_sibling = last, first
        return inner

    def insert_after(self, anchor, node):
        node.prev_sibling, node.next_sibling = anchor, anchor.next_sibling
        anchor.next_sibling.prev_sibling = node
        anchor.next_sibling = node

    def remove(self, node):
        node.prev_sibling.next_sibling, node.next_sibling.prev_sibling = node.next_sibling, node.prev_sibling

    def nodes(self):
        out = []
        node = self.head.next_sibling
        while node is not self.tail:
            out.append(node)
            node = node.next_sibling
        return out


def process_emphasis(nodes, head):
    """Pair the delimiter runs of `nodes` (listed from `head`) into emph/strong nodes, in place."""
    chain = Chain(nodes)
    bottoms = {}
    closer = head.next
    while closer is not None:
        if not closer.can_close:
            closer = closer.next
            continue
        key = (closer.char, closer.can_open, closer.original % 3)
        opener = find_opener(closer, bottoms.get(key))
        if opener is None:
            # No opener below this point can ever match a closer of this kind: search no further next time.
            bottoms[key] = closer.prev
            following = closer.next
            if not closer.can_open:
                closer.unlink()
            closer = following
            continue
        closer = pair(chain, opener, closer)
    nodes[:] = chain.nodes()


def pair(chain, opener, closer):
    """Wrap what lies between opener and closer in emphasis; the closer to look at next."""
    use = 2 if opener.count >= 2 and closer.count >= 2 else 1
    opener.count -= use
    closer.count -= use
    opener.node.literal = opener.node.literal[:-use]
    closer.node.literal = closer.node.literal[:-use]
    inner = chain.cut_between(opener.node, closer.node)
    emphasis = Inline("strong" if use == 2 else "emph", children=inner)
    chain.insert_after(opener.node, emphasis)
    opener.next, closer.prev = closer, opener   # the delimiters between are now inside the emphasis
    if opener.count == 0:
        chain.remove(opener.node)
        opener.unlink()
    if closer.count == 0:
        following = closer.next
        chain.remove(closer.node)
        closer.unlink()
        return following
    return closer
