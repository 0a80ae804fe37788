"""Comparing values (5.1), three-valued logic (5.2) and the sort order (5.4). None is NULL."""


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def order_of(a, b):
    """-1, 0 or 1 for two non-NULL values: numbers by value, text by code point, numbers first."""
    if is_number(a) != is_number(b):
        return -1 if is_number(a) else 1
    if a < b:
        return -1
    if b < a:
        return 1
    return 0


def compare(operator, a, b):
    """True, False, or None (unknown) when either side is NULL."""
    if a is None or b is None:
        return None
    if operator == "=":
        return is_number(a) == is_number(b) and order_of(a, b) == 0
    if operator in ("!=", "<>"):
        return not (is_number(a) == is_number(b) and order_of(a, b) == 0)
    relation = order_of(a, b)
    if operator == "<":
        return relation < 0
    if operator == "<=":
        return relation <= 0
    if operator == ">":
        return relation > 0
    return relation >= 0


def logical_not(value):
    return None if value is None else not value


def logical_and(a, b):
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def logical_or(a, b):
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def sort_order(a, b):
    """Sorting compares like order_of, with NULL equal to NULL and below everything else."""
    if a is None or b is None:
        return (a is not None) - (b is not None)
    return order_of(a, b)


def same_row(a, b):
    """DISTINCT equality: every value pairwise equal, NULL equal to NULL."""
    return len(a) == len(b) and all(sort_order(x, y) == 0 for x, y in zip(a, b))
