"""Recursive-descent parser for the grammar of spec section 4.1.

Also applies the purely syntactic rules of 4.1 (aggregate placement, HAVING
needs GROUP BY, no repeated table, no bare columns in an aggregate query
without grouping). They run here, before any file is opened, because the
spec says a query breaking them exits 2 even if it names missing tables.
"""

from sqlcsv.errors import usage_error
from sqlcsv.lexer import AGGREGATES, END, IDENT, KW, NUM, STR, SYM, tokenize
from sqlcsv.nodes import (
    Aggregate, And, Column, Compare, IsNull, Join, Literal, Not, Or, OrderKey,
    OutputRef, Query, SelectItem, bare_columns, walk,
)

COMPARATORS = ("=", "!=", "<>", "<", "<=", ">", ">=")


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    # -- token helpers -------------------------------------------------
    @property
    def token(self):
        return self.tokens[self.pos]

    def advance(self):
        token = self.tokens[self.pos]
        if token.kind != END:
            self.pos += 1
        return token

    def at_keyword(self, *words):
        return self.token.kind == KW and self.token.value in words

    def at_symbol(self, *symbols):
        return self.token.kind == SYM and self.token.value in symbols

    def accept_keyword(self, word):
        if self.at_keyword(word):
            self.advance()
            return True
        return False

    def accept_symbol(self, symbol):
        if self.at_symbol(symbol):
            self.advance()
            return True
        return False

    def fail(self, expected):
        raise usage_error("syntax error: expected %s, found %s"
                          % (expected, self.token.describe()))

    def expect_keyword(self, word):
        if not self.accept_keyword(word):
            self.fail(word)

    def expect_symbol(self, symbol):
        if not self.accept_symbol(symbol):
            self.fail(repr(symbol))

    def expect_identifier(self, what):
        if self.token.kind != IDENT:
            self.fail(what)
        return self.advance().value

    # -- grammar ---------------------------------------------------------
    def parse_query(self):
        q = Query()
        self.expect_keyword("SELECT")
        q.distinct = self.accept_keyword("DISTINCT")
        if self.accept_symbol("*"):
            q.items = None
        else:
            q.items = [self.parse_item()]
            while self.accept_symbol(","):
                q.items.append(self.parse_item())
        self.expect_keyword("FROM")
        q.table = self.expect_identifier("table name")
        while self.at_keyword("JOIN", "INNER", "LEFT"):
            q.joins.append(self.parse_join())
        if self.accept_keyword("WHERE"):
            q.where = self.parse_condition(allow_aggregates=False)
        if self.accept_keyword("GROUP"):
            self.expect_keyword("BY")
            q.group_by = [self.parse_column()]
            while self.accept_symbol(","):
                q.group_by.append(self.parse_column())
        if self.accept_keyword("HAVING"):
            q.having = self.parse_condition(allow_aggregates=True)
        if self.accept_keyword("ORDER"):
            self.expect_keyword("BY")
            q.order_by = [self.parse_order_key()]
            while self.accept_symbol(","):
                q.order_by.append(self.parse_order_key())
        if self.accept_keyword("LIMIT"):
            q.limit = self.parse_count()
            if self.accept_keyword("OFFSET"):
                q.offset = self.parse_count()
        self.accept_symbol(";")
        if self.token.kind != END:
            # Also catches clauses given out of order: the clause list above
            # is tried once, in grammar order, so a late WHERE lands here.
            self.fail("end of query")
        return q

    def parse_item(self):
        expr = self.parse_aggregate() if self.at_keyword(*AGGREGATES) else self.parse_column()
        alias = None
        if self.accept_keyword("AS"):
            alias = self.expect_identifier("alias after AS")
        return SelectItem(expr, alias)

    def parse_column(self):
        first = self.expect_identifier("column name")
        if self.accept_symbol("."):
            return Column(first, self.expect_identifier("column name after '.'"))
        return Column(None, first)

    def parse_aggregate(self):
        func = self.advance().value
        self.expect_symbol("(")
        if func == "COUNT" and self.accept_symbol("*"):
            arg = None
        else:
            arg = self.parse_column()
        self.expect_symbol(")")
        return Aggregate(func, arg)

    def parse_join(self):
        left_outer = False
        if self.accept_keyword("LEFT"):
            left_outer = True
            self.accept_keyword("OUTER")
        else:
            self.accept_keyword("INNER")
        self.expect_keyword("JOIN")
        table = self.expect_identifier("table name after JOIN")
        self.expect_keyword("ON")
        left = self.parse_column()
        self.expect_symbol("=")
        right = self.parse_column()
        return Join(left_outer, table, left, right)

    def parse_order_key(self):
        expr = self.parse_aggregate() if self.at_keyword(*AGGREGATES) else self.parse_column()
        descending = False
        if self.accept_keyword("DESC"):
            descending = True
        else:
            self.accept_keyword("ASC")
        return OrderKey(expr, descending)

    def parse_count(self):
        token = self.token
        # Only a plain digit string: no minus sign, no decimal point.
        if token.kind != NUM or not isinstance(token.value, int) or token.text.startswith("-"):
            self.fail("a non-negative integer")
        self.advance()
        return token.value

    # Conditions: OR of ANDs of (NOT*) predicates.
    def parse_condition(self, allow_aggregates):
        operands = [self.parse_conjunct(allow_aggregates)]
        while self.accept_keyword("OR"):
            operands.append(self.parse_conjunct(allow_aggregates))
        return operands[0] if len(operands) == 1 else Or(operands)

    def parse_conjunct(self, allow_aggregates):
        operands = [self.parse_negation(allow_aggregates)]
        while self.accept_keyword("AND"):
            operands.append(self.parse_negation(allow_aggregates))
        return operands[0] if len(operands) == 1 else And(operands)

    def parse_negation(self, allow_aggregates):
        if self.accept_keyword("NOT"):
            return Not(self.parse_negation(allow_aggregates))
        return self.parse_predicate(allow_aggregates)

    def parse_predicate(self, allow_aggregates):
        if self.accept_symbol("("):
            inner = self.parse_condition(allow_aggregates)
            self.expect_symbol(")")
            return inner
        left = self.parse_operand(allow_aggregates)
        if self.accept_keyword("IS"):
            negated = self.accept_keyword("NOT")
            self.expect_keyword("NULL")
            return IsNull(left, negated)
        if not self.at_symbol(*COMPARATORS):
            self.fail("a comparison operator or IS")
        op = self.advance().value
        right = self.parse_operand(allow_aggregates)
        return Compare(op, left, right)

    def parse_operand(self, allow_aggregates):
        token = self.token
        if token.kind == IDENT:
            return self.parse_column()
        if token.kind == KW and token.value in AGGREGATES:
            if not allow_aggregates:
                raise usage_error("aggregate %s is not allowed in WHERE" % token.value)
            return self.parse_aggregate()
        if token.kind in (STR, NUM):
            self.advance()
            return Literal(token.value)
        if self.accept_keyword("NULL"):
            return Literal(None)
        self.fail("a column, literal or NULL")


def parse(text):
    parser = Parser(tokenize(text))
    query = parser.parse_query()
    _check_syntax_rules(query)
    return query


def _check_syntax_rules(q):
    if q.having is not None and q.group_by is None:
        raise usage_error("HAVING requires GROUP BY")

    seen = {q.table}
    for join in q.joins:
        if join.table in seen:
            raise usage_error("table %s appears more than once" % join.table)
        seen.add(join.table)

    # An ORDER BY identifier equal to an AS alias reads that output column
    # (spec 4.2). Deciding this now keeps aliases out of the bare-column rule.
    aliases = {}
    for i, item in enumerate(q.items or ()):
        if item.alias is not None:
            aliases.setdefault(item.alias, []).append(i)
    for key in q.order_by:
        expr = key.expr
        if isinstance(expr, Column) and expr.table is None and expr.name in aliases:
            key.expr = OutputRef(expr.name, aliases[expr.name])

    exprs = [item.expr for item in q.items or ()] + [key.expr for key in q.order_by]
    if q.having is not None:
        exprs.append(q.having)
    q.is_aggregate = q.group_by is not None or any(
        isinstance(node, Aggregate) for expr in exprs for node in walk(expr))

    if q.is_aggregate and q.group_by is None:
        # Aggregate query without grouping: one row, so a bare column has no
        # single value to show.
        if q.items is None:
            raise usage_error("SELECT * cannot be combined with an aggregate without GROUP BY")
        for expr in [item.expr for item in q.items] + [key.expr for key in q.order_by]:
            if not isinstance(expr, OutputRef) and bare_columns(expr):
                raise usage_error("column %s must be inside an aggregate or listed in GROUP BY"
                                  % bare_columns(expr)[0].text)
