"""Name resolution, the grouping rules of spec 4.3, and evaluation (section 5).

Rows are tuples: the FROM table's values followed by each joined table's, so
a resolved column is just an index into that tuple.
"""

from sqlcsv.errors import name_error, usage_error
from sqlcsv.loader import TEXT, list_tables, load_table
from sqlcsv.nodes import (
    Aggregate, And, Column, Compare, IsNull, Literal, Not, Or, OutputRef,
    SelectItem, bare_columns, walk,
)


# -- comparison (spec 5.1) --------------------------------------------------

def compare(a, b):
    """-1, 0 or 1 for two non-NULL values. Numbers sort before text."""
    a_text = isinstance(a, str)
    b_text = isinstance(b, str)
    if a_text != b_text:
        return 1 if a_text else -1
    return (a > b) - (a < b)


COMPARATORS = {
    "=": lambda c: c == 0,
    "!=": lambda c: c != 0,
    "<>": lambda c: c != 0,
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}


def sort_key(value):
    # NULL < numbers < text (spec 5.4); the tag keeps Python from ever
    # comparing a number with a string.
    if value is None:
        return (0, 0)
    if isinstance(value, str):
        return (2, value)
    return (1, value)


# -- name resolution (spec 4.2) ----------------------------------------------

class Scope:
    def __init__(self):
        self.tables = []  # (table, offset of its first column in a row)

    def add(self, table, offset):
        self.tables.append((table, offset))

    def resolve(self, column):
        if column.table is not None:
            for table, offset in self.tables:
                if table.name == column.table:
                    if column.name not in table.columns:
                        raise name_error("no column %s in table %s" % (column.name, table.name))
                    self._bind(column, table, offset)
                    return
            raise name_error("table %s is not part of this query" % column.table)
        matches = [(t, o) for t, o in self.tables if column.name in t.columns]
        if not matches:
            raise name_error("no such column: %s" % column.name)
        if len(matches) > 1:
            raise name_error("ambiguous column name: %s (qualify it with a table name)"
                             % column.name)
        self._bind(column, *matches[0])

    @staticmethod
    def _bind(column, table, offset):
        position = table.columns.index(column.name)
        column.index = offset + position
        column.ctype = table.types[position]


def _columns_in(expr):
    return [node for node in walk(expr) if isinstance(node, Column)]


def resolve(query, data_dir):
    """Bind every column reference; return the loaded tables in row order."""
    available = list_tables(data_dir)
    names = [query.table] + [join.table for join in query.joins]
    for name in names:
        if name not in available:
            raise name_error("no such table: %s" % name)
    tables = [load_table(name, available[name]) for name in names]

    scope = Scope()
    offset = 0
    for i, table in enumerate(tables):
        scope.add(table, offset)
        offset += len(table.columns)
        if i > 0:
            # ON sees only the tables joined so far, including this one.
            join = query.joins[i - 1]
            scope.resolve(join.left)
            scope.resolve(join.right)

    if query.items is None:
        # SELECT * : every column of every table, in row order. The columns
        # are built qualified, so resolving them below cannot be ambiguous.
        query.items = []
        for table, _ in scope.tables:
            for name in table.columns:
                query.items.append(SelectItem(Column(table.name, name), None))

    exprs = [item.expr for item in query.items]
    exprs += [query.where, query.having] + list(query.group_by or ())
    exprs += [key.expr for key in query.order_by]
    for expr in exprs:
        if expr is None:
            continue
        if isinstance(expr, OutputRef):
            if len(expr.candidates) > 1:
                raise name_error("ambiguous alias in ORDER BY: %s" % expr.name)
            continue
        for column in _columns_in(expr):
            scope.resolve(column)
    return tables


# -- the rules of spec 4.3 ---------------------------------------------------

def _same_expr(a, b):
    if isinstance(a, Column) and isinstance(b, Column):
        return a.index == b.index
    if isinstance(a, Aggregate) and isinstance(b, Aggregate):
        if a.func != b.func:
            return False
        if a.arg is None or b.arg is None:
            return a.arg is None and b.arg is None
        return a.arg.index == b.arg.index
    return False


def check_rules(query):
    if query.group_by is not None:
        grouped = {column.index for column in query.group_by}
        exprs = [item.expr for item in query.items] + [query.having]
        exprs += [key.expr for key in query.order_by]
        for expr in exprs:
            for column in bare_columns(expr):
                if column.index not in grouped:
                    raise usage_error("column %s must be inside an aggregate or listed in GROUP BY"
                                      % column.text)

    if query.distinct:
        # Every key must read an output column, so sorting after DISTINCT
        # is well defined.
        for key in query.order_by:
            if isinstance(key.expr, OutputRef):
                continue
            for i, item in enumerate(query.items):
                if _same_expr(key.expr, item.expr):
                    key.expr = OutputRef(item.name, [i])
                    break
            else:
                raise usage_error("with DISTINCT, ORDER BY keys must be selected columns")

    exprs = [item.expr for item in query.items] + [query.having]
    exprs += [key.expr for key in query.order_by]
    for expr in exprs:
        for node in walk(expr) if expr is not None else ():
            if (isinstance(node, Aggregate) and node.func in ("SUM", "AVG")
                    and node.arg.ctype == TEXT):
                raise usage_error("%s needs a numeric column" % node.text)


# -- evaluation (spec 5) -----------------------------------------------------

def aggregate(node, rows):
    if node.arg is None:
        return len(rows)
    index = node.arg.index
    values = [row[index] for row in rows if row[index] is not None]
    if node.func == "COUNT":
        return len(values)
    if not values:
        return None
    if node.func == "MIN":
        return min(values, key=sort_key)
    if node.func == "MAX":
        return max(values, key=sort_key)
    # SUM / AVG: add one at a time in natural order (floats are not
    # associative, so the order is part of the result).
    total = values[0]
    for value in values[1:]:
        total += value
    if node.func == "SUM":
        return total
    return total / len(values)


def value_of(node, row, group):
    """An operand's value on a row; `group` is the row list in grouped queries."""
    if isinstance(node, Column):
        return row[node.index]
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Aggregate):
        return aggregate(node, group)
    raise AssertionError("not an operand: %r" % (node,))


def truth(node, row, group):
    """True, False or None (unknown), per spec 5.1 and 5.2."""
    if isinstance(node, Compare):
        a = value_of(node.left, row, group)
        b = value_of(node.right, row, group)
        if a is None or b is None:
            return None
        return COMPARATORS[node.op](compare(a, b))
    if isinstance(node, IsNull):
        is_null = value_of(node.operand, row, group) is None
        return not is_null if node.negated else is_null
    if isinstance(node, Not):
        inner = truth(node.operand, row, group)
        return None if inner is None else not inner
    if isinstance(node, And):
        results = [truth(op, row, group) for op in node.operands]
        if False in results:
            return False
        return None if None in results else True
    if isinstance(node, Or):
        results = [truth(op, row, group) for op in node.operands]
        if True in results:
            return True
        return None if None in results else False
    raise AssertionError("not a condition: %r" % (node,))


def _join(rows, table, join):
    nulls = (None,) * len(table.columns)
    left, right = join.left.index, join.right.index
    joined = []
    for row in rows:
        matched = False
        for other in table.rows:
            combined = row + other
            a, b = combined[left], combined[right]
            if a is not None and b is not None and compare(a, b) == 0:
                joined.append(combined)
                matched = True
        if not matched and join.left_outer:
            joined.append(row + nulls)
    return joined


def execute(query, data_dir):
    """Return (output names, list of output value tuples)."""
    tables = resolve(query, data_dir)
    check_rules(query)

    # 1. FROM and joins, 2. WHERE
    rows = list(tables[0].rows)
    for table, join in zip(tables[1:], query.joins):
        rows = _join(rows, table, join)
    if query.where is not None:
        rows = [row for row in rows if truth(query.where, row, None) is True]

    # 3. grouping: a list of (representative row, group rows or None)
    if query.group_by is not None:
        groups = {}
        for row in rows:
            # Python's == and hash agree with spec 5.1 equality here: a column
            # never mixes numbers and text, and None keys all NULLs together.
            key = tuple(row[column.index] for column in query.group_by)
            groups.setdefault(key, []).append(row)
        contexts = [(members[0], members) for members in groups.values()]
    elif query.is_aggregate:
        width = sum(len(table.columns) for table in tables)
        contexts = [(rows[0] if rows else (None,) * width, rows)]
    else:
        contexts = [(row, None) for row in rows]

    # 4. HAVING
    if query.having is not None:
        contexts = [c for c in contexts if truth(query.having, c[0], c[1]) is True]

    # Project, and compute sort keys before projection (a key may name an
    # unselected column).
    records = []
    for row, group in contexts:
        output = tuple(value_of(item.expr, row, group) for item in query.items)
        keys = tuple(
            output[key.expr.candidates[0]] if isinstance(key.expr, OutputRef)
            else value_of(key.expr, row, group)
            for key in query.order_by
        )
        records.append((output, keys))

    # 5. DISTINCT keeps the first of equal output rows.
    if query.distinct:
        seen = set()
        unique = []
        for record in records:
            if record[0] not in seen:
                seen.add(record[0])
                unique.append(record)
        records = unique

    # 6. ORDER BY: stable sorts from the least significant key up. Python's
    # sort stays stable with reverse=True, so ties keep natural order under
    # DESC too.
    for position in range(len(query.order_by) - 1, -1, -1):
        records.sort(key=lambda record: sort_key(record[1][position]),
                     reverse=query.order_by[position].descending)

    # 7. OFFSET then LIMIT
    records = records[query.offset:]
    if query.limit is not None:
        records = records[:query.limit]

    names = [item.name for item in query.items]
    return names, [record[0] for record in records]
