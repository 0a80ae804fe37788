"""Recursive-descent parser for the grammar of section 4.1, with its syntactic rules."""
from sqlcsv.failure import bad_input
from sqlcsv.lexer import tokenize
from sqlcsv.syntax import Aggregate, Both, Column, Compare, Either, IsNull, Item, Join, Literal, Not, OrderKey, Query, operands

AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX")
COMPARATORS = ("=", "!=", "<>", "<", "<=", ">", ">=")
# Logical operators from the loosest binding to the tightest (NOT binds tighter still).
LOGIC_LEVELS = ("OR", "AND")


class Parser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.at = 0

    @property
    def current(self):
        return self.tokens[self.at]

    def advance(self):
        token = self.tokens[self.at]
        self.at += 1
        return token

    def is_keyword(self, *words):
        return self.current.kind == "keyword" and self.current.value in words

    def is_symbol(self, *symbols):
        return self.current.kind == "symbol" and self.current.value in symbols

    def expect_keyword(self, word):
        if not self.is_keyword(word):
            raise self.unexpected("%s expected" % word)
        return self.advance()

    def expect_symbol(self, symbol):
        if not self.is_symbol(symbol):
            raise self.unexpected("%r expected" % symbol)
        return self.advance()

    def unexpected(self, what):
        token = self.current
        seen = "end of query" if token.kind == "end" else repr(token.text)
        return bad_input("syntax error: %s, found %s" % (what, seen))

    def identifier(self):
        if self.current.kind != "ident":
            raise self.unexpected("a name")
        return self.advance().value

    # query = SELECT [DISTINCT] selection FROM table {join} [WHERE ...] ... [";"]
    def query(self):
        q = Query()
        self.expect_keyword("SELECT")
        if self.is_keyword("DISTINCT"):
            self.advance()
            q.distinct = True
        if self.is_symbol("*"):
            self.advance()
            q.star = True
        else:
            q.items.append(self.item())
            while self.is_symbol(","):
                self.advance()
                q.items.append(self.item())
        self.expect_keyword("FROM")
        q.table = self.identifier()
        while self.is_keyword("JOIN", "INNER", "LEFT"):
            q.joins.append(self.join())
        if self.is_keyword("WHERE"):
            self.advance()
            q.where = self.condition()
        if self.is_keyword("GROUP"):
            self.advance()
            self.expect_keyword("BY")
            q.group_by.append(self.column())
            while self.is_symbol(","):
                self.advance()
                q.group_by.append(self.column())
        if self.is_keyword("HAVING"):
            self.advance()
            q.having = self.condition()
        if self.is_keyword("ORDER"):
            self.advance()
            self.expect_keyword("BY")
            q.order_by.append(self.order_key())
            while self.is_symbol(","):
                self.advance()
                q.order_by.append(self.order_key())
        if self.is_keyword("LIMIT"):
            self.advance()
            q.limit = self.count()
            if self.is_keyword("OFFSET"):
                self.advance()
                q.offset = self.count()
        if self.is_symbol(";"):
            self.advance()
        if self.current.kind != "end":
            raise self.unexpected("end of query")
        return q

    def item(self):
        expression = self.aggregate() if self.is_keyword(*AGGREGATES) else self.column()
        alias = None
        if self.is_keyword("AS"):
            self.advance()
            alias = self.identifier()
        return Item(expression, alias)

    def column(self):
        first = self.identifier()
        if self.is_symbol("."):
            self.advance()
            return Column(first, self.identifier())
        return Column(None, first)

    def aggregate(self):
        function = self.advance().value
        self.expect_symbol("(")
        if function == "COUNT" and self.is_symbol("*"):
            self.advance()
            argument = None
        else:
            argument = self.column()
        self.expect_symbol(")")
        return Aggregate(function, argument)

    def join(self):
        kind = "inner"
        if self.is_keyword("LEFT"):
            self.advance()
            kind = "left"
            if self.is_keyword("OUTER"):
                self.advance()
        elif self.is_keyword("INNER"):
            self.advance()
        self.expect_keyword("JOIN")
        table = self.identifier()
        self.expect_keyword("ON")
        left = self.column()
        self.expect_symbol("=")
        right = self.column()
        return Join(kind, table, left, right)

    def order_key(self):
        expression = self.aggregate() if self.is_keyword(*AGGREGATES) else self.column()
        descending = False
        if self.is_keyword("ASC", "DESC"):
            descending = self.advance().value == "DESC"
        return OrderKey(expression, descending)

    def count(self):
        token = self.current
        if token.kind != "number" or not isinstance(token.value, int) or token.text.startswith("-"):
            raise self.unexpected("a row count (a whole number, no sign)")
        self.advance()
        return token.value

    # condition = conjunct {OR conjunct}; conjunct = negation {AND negation}
    def condition(self, level=0):
        if level == len(LOGIC_LEVELS):
            return self.negation()
        word = LOGIC_LEVELS[level]
        left = self.condition(level + 1)
        while self.is_keyword(word):
            self.advance()
            right = self.condition(level + 1)
            left = Both(left, right) if word == "AND" else Either(left, right)
        return left

    def negation(self):
        if self.is_keyword("NOT"):
            self.advance()
            return Not(self.negation())
        return self.predicate()

    def predicate(self):
        if self.is_symbol("("):
            self.advance()
            inner = self.condition()
            self.expect_symbol(")")
            return inner
        left = self.operand()
        if self.is_keyword("IS"):
            self.advance()
            negated = False
            if self.is_keyword("NOT"):
                self.advance()
                negated = True
            self.expect_keyword("NULL")
            return IsNull(left, negated)
        if not self.is_symbol(*COMPARATORS):
            raise self.unexpected("a comparison or IS [NOT] NULL")
        operator = self.advance().value
        return Compare(operator, left, self.operand())

    def operand(self):
        token = self.current
        if token.kind in ("string", "number"):
            self.advance()
            return Literal(token.value)
        if self.is_keyword("NULL"):
            self.advance()
            return Literal(None)
        if self.is_keyword(*AGGREGATES):
            return self.aggregate()
        return self.column()


def has_aggregate(expressions):
    return any(isinstance(e, Aggregate) for e in expressions)


def check_syntax_rules(q):
    """The rules of 4.1 checked with parsing, before any name is looked up (all status 2)."""
    if has_aggregate(operands(q.where)):
        raise bad_input("aggregates are not allowed in WHERE")
    if q.having is not None and not q.group_by:
        raise bad_input("HAVING requires GROUP BY")
    seen = set()
    for name in [q.table] + [j.table for j in q.joins]:
        if name in seen:
            raise bad_input("table %s appears more than once" % name)
        seen.add(name)
    aliases = {item.alias for item in q.items if item.alias is not None}
    for key in q.order_by:
        e = key.expression
        if isinstance(e, Column) and e.table is None and e.name in aliases:
            key.output = e.name
    selected = [item.expression for item in q.items]
    ordered = [key.expression for key in q.order_by if key.output is None]
    uses_aggregate = has_aggregate(selected) or has_aggregate(ordered) or has_aggregate(operands(q.having))
    if uses_aggregate and not q.group_by:
        if q.star:
            raise bad_input("SELECT * cannot be combined with aggregates without GROUP BY")
        if any(isinstance(e, Column) for e in selected + ordered):
            raise bad_input("a column outside an aggregate needs GROUP BY when the query uses an aggregate")


def parse(text):
    q = Parser(text).query()
    check_syntax_rules(q)
    return q
