"""Name binding (section 4.2, status 3) and the grouping rules checked after it (4.3, status 2)."""
from sqlcsv.datadir import load_table, table_files
from sqlcsv.failure import bad_input, bad_name
from sqlcsv.syntax import Aggregate, Column, operands


class Scope:
    """The tables of a query in FROM-then-join order, each with its offset in a combined row."""

    def __init__(self, tables):
        self.tables = tables
        self.offsets = []
        width = 0
        for table in tables:
            self.offsets.append(width)
            width += len(table.columns)
        self.width = width

    def resolve(self, column, visible):
        """Sets column.slot using the first `visible` tables, or refuses with status 3."""
        candidates = []
        for index in range(visible):
            table = self.tables[index]
            if column.table is not None and table.name != column.table:
                continue
            if column.name in table.columns:
                candidates.append(self.offsets[index] + table.columns.index(column.name))
        if column.table is not None and all(t.name != column.table for t in self.tables[:visible]):
            raise bad_name("table %s is not in scope for %s" % (column.table, column.written))
        if not candidates:
            raise bad_name("no column %s" % column.written)
        if len(candidates) > 1:
            raise bad_name("column %s is ambiguous; qualify it with its table" % column.written)
        column.slot = candidates[0]

    def kind_of(self, slot):
        for index in range(len(self.tables) - 1, -1, -1):
            if slot >= self.offsets[index]:
                return self.tables[index].kinds[slot - self.offsets[index]]
        raise AssertionError("slot out of range")


def columns_in(expressions):
    """Columns used outside aggregates, and the aggregates, among expressions."""
    loose = [e for e in expressions if isinstance(e, Column)]
    aggregates = [e for e in expressions if isinstance(e, Aggregate)]
    return loose, aggregates


def bind(query, directory):
    files = table_files(directory)
    names = [query.table] + [join.table for join in query.joins]
    for name in names:
        if name not in files:
            raise bad_name("no table named %s in the data directory" % name)
    scope = Scope([load_table(directory, name, files) for name in names])

    for position, join in enumerate(query.joins):
        scope.resolve(join.left, position + 2)
        scope.resolve(join.right, position + 2)
    every = len(scope.tables)
    expressions = [item.expression for item in query.items]
    expressions += operands(query.where) + list(query.group_by) + operands(query.having)
    expressions += [key.expression for key in query.order_by if key.output is None]
    for expression in expressions:
        column = expression.argument if isinstance(expression, Aggregate) else expression
        if isinstance(column, Column):
            scope.resolve(column, every)
    for key in query.order_by:
        if key.output is not None and sum(1 for item in query.items if item.alias == key.output) > 1:
            raise bad_name("ORDER BY %s is ambiguous: several select items carry that alias" % key.output)

    check_grouping(query, scope)
    for expression in expressions:
        if isinstance(expression, Aggregate) and expression.function in ("SUM", "AVG") and expression.argument is not None:
            if scope.kind_of(expression.argument.slot) == "text":
                raise bad_input("%s of a text column" % expression.function)
    return scope


def same_aggregate(a, b):
    if a.function != b.function:
        return False
    if a.argument is None or b.argument is None:
        return a.argument is None and b.argument is None
    return a.argument.slot == b.argument.slot


def check_grouping(query, scope):
    selected = [item.expression for item in query.items]
    if query.group_by:
        grouped = {column.slot for column in query.group_by}
        loose, _ = columns_in(selected + operands(query.having) + [k.expression for k in query.order_by if k.output is None])
        if query.star and any(slot not in grouped for slot in range(scope.width)):
            raise bad_input("SELECT * with GROUP BY needs every column to be a GROUP BY column")
        for column in loose:
            if column.slot not in grouped:
                raise bad_input("%s must be a GROUP BY column or inside an aggregate" % column.written)
    if query.distinct:
        shown = set(range(scope.width)) if query.star else {e.slot for e in selected if isinstance(e, Column)}
        for key in query.order_by:
            e = key.expression
            if key.output is not None:
                continue
            if isinstance(e, Column) and e.slot in shown:
                continue
            if isinstance(e, Aggregate) and any(isinstance(s, Aggregate) and same_aggregate(s, e) for s in selected):
                continue
            raise bad_input("with SELECT DISTINCT, ORDER BY %s must be an output column" % e.written)
