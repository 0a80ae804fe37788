"""Rules 1 to 8 of "Emphasis and strong emphasis": which delimiter runs can open or close.

A run is left-flanking when it is not followed by whitespace and, if followed by punctuation,
is preceded by whitespace or punctuation; right-flanking is the mirror image. Each rule is its
own function, keyed by the run's character and whether it is one delimiter or more.
"""
from mdlite.characters import is_unicode_punctuation, is_unicode_whitespace


class Flanks:
    """The characters either side of a run (the empty string at the edges) and its flanking."""

    def __init__(self, before, after):
        self.before = before
        self.after = after
        self.left = not is_unicode_whitespace(after) and (
            not is_unicode_punctuation(after) or is_unicode_whitespace(before) or is_unicode_punctuation(before))
        self.right = not is_unicode_whitespace(before) and (
            not is_unicode_punctuation(before) or is_unicode_whitespace(after) or is_unicode_punctuation(after))


def rule_1(f):
    """A single * can open emphasis iff it is part of a left-flanking run."""
    return f.left


def rule_2(f):
    """A single _ can open iff left-flanking and not right-flanking, or right-flanking after punctuation."""
    return f.left and (not f.right or is_unicode_punctuation(f.before))


def rule_3(f):
    """A single * can close emphasis iff it is part of a right-flanking run."""
    return f.right


def rule_4(f):
    """A single _ can close iff right-flanking and not left-flanking, or left-flanking before punctuation."""
    return f.right and (not f.left or is_unicode_punctuation(f.after))


def rule_5(f):
    """A double ** can open strong emphasis iff it is part of a left-flanking run."""
    return f.left


def rule_6(f):
    """A double __ can open iff left-flanking and not right-flanking, or right-flanking after punctuation."""
    return f.left and (not f.right or is_unicode_punctuation(f.before))


def rule_7(f):
    """A double ** can close strong emphasis iff it is part of a right-flanking run."""
    return f.right


def rule_8(f):
    """A double __ can close iff right-flanking and not left-flanking, or left-flanking before punctuation."""
    return f.right and (not f.left or is_unicode_punctuation(f.after))


OPENS = {("*", 1): rule_1, ("_", 1): rule_2, ("*", 2): rule_5, ("_", 2): rule_6}
CLOSES = {("*", 1): rule_3, ("_", 1): rule_4, ("*", 2): rule_7, ("_", 2): rule_8}


def can_open_and_close(char, length, before, after):
    """(can open, can close) for a run of `length` delimiters `char` between `before` and `after`."""
    flanks = Flanks(before, after)
    key = (char, min(length, 2))
    return OPENS[key](flanks), CLOSES[key](flanks)
