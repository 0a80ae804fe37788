"""Emphasis and strong emphasis: the delimiter-run algorithm of the appendix ("process emphasis")."""
from mdlite.nodes import Node


class Delimiter:
    """A run of `*` or `_` still able to open or close, linked to the run before it."""

    def __init__(self, node, char, count, can_open, can_close, previous):
        self.node = node
        self.char = char
        self.count = count
        self.original = count
        self.can_open = can_open
        self.can_close = can_close
        self.previous = previous
        self.next = None
        if previous is not None:
            previous.next = self


def remove(delimiter):
    if delimiter.previous is not None:
        delimiter.previous.next = delimiter.next
    if delimiter.next is not None:
        delimiter.next.previous = delimiter.previous


def forbidden_by_rule_of_three(opener, closer):
    """Rules 9 and 10: a run that both opens and closes pairs only if the lengths' sum is no multiple of 3."""
    both_ways = closer.can_open or opener.can_close
    return both_ways and closer.original % 3 != 0 and (opener.original + closer.original) % 3 == 0


def find_opener(closer, bottom):
    opener = closer.previous
    while opener is not None and opener is not bottom:
        if opener.char == closer.char and opener.can_open and not forbidden_by_rule_of_three(opener, closer):
            return opener
        opener = opener.previous
    return None


def wrap(block, opener, closer, used):
    """Moves the nodes between the two runs into a new emphasis node, and drops emptied runs."""
    opener.count -= used
    closer.count -= used
    opener.node.literal = opener.node.literal[:len(opener.node.literal) - used]
    closer.node.literal = closer.node.literal[used:]
    node = Node("strong" if used == 2 else "emph")
    children = block.children
    first = children.index(opener.node) + 1
    last = children.index(closer.node)
    for child in children[first:last]:
        node.append(child)
    children[first:last] = [node]
    node.parent = block
    # Runs between the pair can no longer match anything outside it.
    between = closer.previous
    while between is not None and between is not opener:
        earlier = between.previous
        remove(between)
        between = earlier
    if opener.count == 0:
        children.remove(opener.node)
        remove(opener)
    if closer.count == 0:
        children.remove(closer.node)
        following = closer.next
        remove(closer)
        return following
    return closer


def process_emphasis(block, last):
    """Pairs openers with closers, first closer first, nearest opener first."""
    first = last
    while first is not None and first.previous is not None:
        first = first.previous
    lowest = {}
    closer = first
    while closer is not None:
        if closer.can_close:
            closer = pair_closer(block, closer, lowest)
        else:
            closer = closer.next


def pair_closer(block, closer, lowest):
    """Wraps the nearest opener matching `closer`, or notes that none is left below it; the run to look at next."""
    key = (closer.char, closer.can_open, closer.original % 3)
    opener = find_opener(closer, lowest.get(key))
    if opener is not None:
        used = 2 if opener.count >= 2 and closer.count >= 2 else 1
        return wrap(block, opener, closer, used)
    # Nothing below this point can open for a closer like this one: search no lower next time.
    lowest[key] = closer.previous
    following = closer.next
    if not closer.can_open:
        remove(closer)
    return following
