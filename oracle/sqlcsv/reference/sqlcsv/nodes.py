"""Syntax tree node types produced by the parser and annotated by the executor."""


class Column:
    """A column reference, `name` or `table.name`.

    `index` (position in the combined joined row) and `ctype` are filled in
    by name resolution.
    """

    __slots__ = ("table", "name", "index", "ctype")

    def __init__(self, table, name):
        self.table = table
        self.name = name
        self.index = None
        self.ctype = None

    @property
    def text(self):
        return self.name if self.table is None else "%s.%s" % (self.table, self.name)


class Aggregate:
    """COUNT/SUM/AVG/MIN/MAX over a column, or COUNT(*) when arg is None."""

    __slots__ = ("func", "arg")

    def __init__(self, func, arg):
        self.func = func
        self.arg = arg

    @property
    def text(self):
        # Canonical output name (spec 4.4): upper-case name, argument as written.
        return "%s(%s)" % (self.func, "*" if self.arg is None else self.arg.text)


class Literal:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value  # None for NULL


class OutputRef:
    """An ORDER BY key that names a select-list alias (or, after the DISTINCT
    check, any output column): it reads the projected value."""

    __slots__ = ("name", "candidates")

    def __init__(self, name, candidates):
        self.name = name
        self.candidates = candidates  # indexes of select items with this alias


class Compare:
    __slots__ = ("op", "left", "right")

    def __init__(self, op, left, right):
        self.op = op
        self.left = left
        self.right = right


class IsNull:
    __slots__ = ("operand", "negated")

    def __init__(self, operand, negated):
        self.operand = operand
        self.negated = negated


class Not:
    __slots__ = ("operand",)

    def __init__(self, operand):
        self.operand = operand


class And:
    __slots__ = ("operands",)

    def __init__(self, operands):
        self.operands = operands


class Or:
    __slots__ = ("operands",)

    def __init__(self, operands):
        self.operands = operands


class SelectItem:
    __slots__ = ("expr", "alias")

    def __init__(self, expr, alias):
        self.expr = expr
        self.alias = alias

    @property
    def name(self):
        if self.alias is not None:
            return self.alias
        if isinstance(self.expr, Column):
            return self.expr.name  # bare column name, qualifier dropped
        return self.expr.text


class Join:
    __slots__ = ("left_outer", "table", "left", "right")

    def __init__(self, left_outer, table, left, right):
        self.left_outer = left_outer
        self.table = table
        self.left = left
        self.right = right


class OrderKey:
    __slots__ = ("expr", "descending")

    def __init__(self, expr, descending):
        self.expr = expr
        self.descending = descending


class Query:
    __slots__ = ("distinct", "items", "table", "joins", "where", "group_by",
                 "having", "order_by", "limit", "offset", "is_aggregate")

    def __init__(self):
        self.distinct = False
        self.items = None        # None means SELECT *
        self.table = None
        self.joins = []
        self.where = None
        self.group_by = None     # list of Column, or None
        self.having = None
        self.order_by = []
        self.limit = None
        self.offset = 0
        self.is_aggregate = False


def walk(node):
    """Yield every expression node under a condition or operand, depth first."""
    yield node
    if isinstance(node, Compare):
        yield from walk(node.left)
        yield from walk(node.right)
    elif isinstance(node, IsNull):
        yield from walk(node.operand)
    elif isinstance(node, Not):
        yield from walk(node.operand)
    elif isinstance(node, (And, Or)):
        for operand in node.operands:
            yield from walk(operand)
    elif isinstance(node, Aggregate) and node.arg is not None:
        yield node.arg


def bare_columns(node):
    """Column references in `node` that are not inside an aggregate."""
    if isinstance(node, Column):
        return [node]
    if isinstance(node, Aggregate) or node is None:
        return []
    if isinstance(node, Compare):
        return bare_columns(node.left) + bare_columns(node.right)
    if isinstance(node, (IsNull, Not)):
        return bare_columns(node.operand)
    if isinstance(node, (And, Or)):
        found = []
        for operand in node.operands:
            found.extend(bare_columns(operand))
        return found
    return []
