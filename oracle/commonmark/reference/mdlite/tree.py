"""The document tree the block parser builds and the renderer walks."""


class Block:
    """A block: a container (document, block quote) holding children, or a leaf holding lines of text."""

    CONTAINERS = ("document", "block_quote")

    def __init__(self, kind, parent=None):
        self.kind = kind
        self.parent = parent
        self.children = []
        self.open = True
        self.lines = []
        self.content = ""      # a leaf's text once closed (raw inline source, or a code block's literal text)
        self.inlines = None    # the parsed inlines of a paragraph or heading
        self.level = 0         # a heading's level
        self.fence = None      # a fenced code block's (character, length, indentation)
        self.info = ""         # a fenced code block's info string

    def can_contain(self, kind):
        return self.kind in self.CONTAINERS

    def accepts_lines(self):
        return self.kind in ("paragraph", "code_block")


class Inline:
    """An inline: text, code, softbreak, linebreak, emph, strong or autolink."""

    def __init__(self, kind, literal="", children=None, destination=""):
        self.kind = kind
        self.literal = literal
        self.children = children if children is not None else []
        self.destination = destination
