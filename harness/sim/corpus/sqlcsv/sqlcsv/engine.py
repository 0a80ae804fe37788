"""Evaluation in the order of section 5.3: joins, WHERE, grouping, HAVING, DISTINCT, ORDER BY, OFFSET/LIMIT."""
from functools import cmp_to_key

from sqlcsv.syntax import Aggregate, Both, Column, Compare, Either, IsNull, Literal, Not
from sqlcsv.values import compare, logical_and, logical_not, logical_or, same_row, sort_order


class Result:
    def __init__(self, names, rows):
        self.names = names
        self.rows = rows


def joined_rows(query, scope):
    rows = [tuple(row) for row in scope.tables[0].rows]
    for position, join in enumerate(query.joins):
        right = scope.tables[position + 1]
        blank = (None,) * len(right.columns)
        produced = []
        for row in rows:
            matched = False
            for other in right.rows:
                combined = row + tuple(other)
                if compare("=", combined[join.left.slot], combined[join.right.slot]) is True:
                    produced.append(combined)
                    matched = True
            if not matched and join.kind == "left":
                produced.append(row + blank)
        rows = produced
    return rows


def aggregate_value(aggregate, rows, scope):
    if aggregate.argument is None:
        return len(rows)
    values = [row[aggregate.argument.slot] for row in rows]
    present = [v for v in values if v is not None]
    if aggregate.function == "COUNT":
        return len(present)
    if not present:
        return None
    if aggregate.function in ("SUM", "AVG"):
        total = 0 if scope.kind_of(aggregate.argument.slot) == "integer" else 0.0
        for value in present:
            total += value
        return total if aggregate.function == "SUM" else total / len(present)
    best = present[0]
    for value in present[1:]:
        relation = sort_order(value, best)
        if (aggregate.function == "MIN" and relation < 0) or (aggregate.function == "MAX" and relation > 0):
            best = value
    return best


class Candidate:
    """One candidate output row: a row or a group (its rows), with what expressions see."""

    def __init__(self, first, rows):
        self.first = first  # the row column references read (a group's first row)
        self.rows = rows  # the rows aggregates read


def evaluate(expression, candidate, scope):
    if isinstance(expression, Literal):
        return expression.value
    if isinstance(expression, Aggregate):
        return aggregate_value(expression, candidate.rows, scope)
    if isinstance(expression, Column):
        return candidate.first[expression.slot] if candidate.first is not None else None
    raise AssertionError("not an operand")


def holds(condition, candidate, scope):
    if isinstance(condition, Compare):
        return compare(condition.operator, evaluate(condition.left, candidate, scope), evaluate(condition.right, candidate, scope))
    if isinstance(condition, IsNull):
        missing = evaluate(condition.operand, candidate, scope) is None
        return not missing if condition.negated else missing
    if isinstance(condition, Not):
        return logical_not(holds(condition.inner, candidate, scope))
    if isinstance(condition, Both):
        return logical_and(holds(condition.left, candidate, scope), holds(condition.right, candidate, scope))
    if isinstance(condition, Either):
        return logical_or(holds(condition.left, candidate, scope), holds(condition.right, candidate, scope))
    raise AssertionError("not a condition")


def group_rows(query, rows, scope):
    if query.group_by:
        groups = []
        for row in rows:
            key = tuple(row[c.slot] for c in query.group_by)
            for group in groups:
                if same_row(group[0], key):
                    group[1].append(row)
                    break
            else:
                groups.append((key, [row]))
        return [Candidate(members[0], members) for _, members in groups]
    if is_aggregate_query(query):
        return [Candidate(rows[0] if rows else None, rows)]
    return [Candidate(row, [row]) for row in rows]


def is_aggregate_query(query):
    expressions = [item.expression for item in query.items] + [k.expression for k in query.order_by if k.output is None]
    return any(isinstance(e, Aggregate) for e in expressions)


def star_slots(scope):
    """Slots of SELECT *: the FROM table's columns in header order, then each joined table's."""
    order = scope.tables
    return [scope.offsets[scope.tables.index(t)] + i for t in order for i in range(len(t.columns))]


def select_items(query):
    """The select list as output columns, in its own order, repeats included."""
    return list(query.items)


def output_names(query, scope):
    if query.star:
        names = [name for table in scope.tables for name in table.columns]
        return [names[slot] for slot in star_slots(scope)]
    return [item.alias if item.alias is not None else (item.expression.name if isinstance(item.expression, Column) else item.expression.written) for item in select_items(query)]


def run(query, scope):
    rows = joined_rows(query, scope)
    if query.where is not None:
        rows = [row for row in rows if holds(query.where, Candidate(row, [row]), scope) is True]
    candidates = group_rows(query, rows, scope)
    if query.having is not None:
        candidates = [c for c in candidates if holds(query.having, c, scope) is True]

    names = output_names(query, scope)
    produced = []
    for candidate in candidates:
        if query.star:
            values = tuple(candidate.first[slot] for slot in star_slots(scope))
        else:
            values = tuple(evaluate(item.expression, candidate, scope) for item in select_items(query))
        keys = []
        for key in query.order_by:
            if key.output is not None:
                index = [item.alias for item in select_items(query)].index(key.output)
                keys.append(values[index])
            else:
                keys.append(evaluate(key.expression, candidate, scope))
        produced.append((values, keys))

    for stage in FINAL_STAGES:
        produced = stage(produced, query)
    return Result(names, [values for values, _ in produced])


def distinct_stage(produced, query):
    if not query.distinct:
        return produced
    kept = []
    for values, keys in produced:
        if not any(same_row(values, other) for other, _ in kept):
            kept.append((values, keys))
    return kept


def order_stage(produced, query):
    if not query.order_by:
        return produced
    directions = [key.descending for key in query.order_by]

    def by_keys(a, b):
        for descending, x, y in zip(directions, a[1], b[1]):
            relation = sort_order(x, y)
            if relation:
                return -relation if descending else relation
        return 0

    return sorted(produced, key=cmp_to_key(by_keys))


def window_stage(produced, query):
    end = None if query.limit is None else query.offset + query.limit
    return produced[query.offset : end]


# Steps 5 to 7 of section 5.3, in order.
FINAL_STAGES = (distinct_stage, order_stage, window_stage)
