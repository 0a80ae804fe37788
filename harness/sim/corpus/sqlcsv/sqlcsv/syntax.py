"""The query's syntax tree: what the parser builds and the later stages read."""


class Column:
    """A column reference, bare (`c`) or qualified (`t.c`); `slot` is filled in by name binding."""

    def __init__(self, table, name):
        self.table = table
        self.name = name
        self.slot = None

    @property
    def written(self):
        return self.name if self.table is None else "%s.%s" % (self.table, self.name)


class Aggregate:
    """COUNT(*) (argument None) or FUNC(column)."""

    def __init__(self, function, argument):
        self.function = function
        self.argument = argument

    @property
    def written(self):
        inner = "*" if self.argument is None else self.argument.written
        return "%s(%s)" % (self.function, inner)


class Literal:
    """A string or numeric literal, or NULL (value None)."""

    def __init__(self, value):
        self.value = value


class Compare:
    def __init__(self, operator, left, right):
        self.operator = operator
        self.left = left
        self.right = right


class IsNull:
    def __init__(self, operand, negated):
        self.operand = operand
        self.negated = negated


class Not:
    def __init__(self, inner):
        self.inner = inner


class Both:
    """AND."""

    def __init__(self, left, right):
        self.left = left
        self.right = right


class Either:
    """OR."""

    def __init__(self, left, right):
        self.left = left
        self.right = right


class Item:
    """One select-list item; `alias` is the name given with AS, if any."""

    def __init__(self, expression, alias):
        self.expression = expression
        self.alias = alias


class Join:
    def __init__(self, kind, table, left, right):
        self.kind = kind  # "inner" or "left"
        self.table = table
        self.left = left
        self.right = right


class OrderKey:
    """An ORDER BY key; `output` is set when a bare identifier names a select-list alias."""

    def __init__(self, expression, descending):
        self.expression = expression
        self.descending = descending
        self.output = None


class Query:
    def __init__(self):
        self.distinct = False
        self.star = False
        self.items = []
        self.table = None
        self.joins = []
        self.where = None
        self.group_by = []
        self.having = None
        self.order_by = []
        self.limit = None
        self.offset = 0


def operands(condition):
    """Every operand (column, aggregate or literal) under a condition, left to right."""
    if condition is None:
        return []
    if isinstance(condition, Compare):
        return [condition.left, condition.right]
    if isinstance(condition, IsNull):
        return [condition.operand]
    if isinstance(condition, Not):
        return operands(condition.inner)
    return operands(condition.left) + operands(condition.right)
