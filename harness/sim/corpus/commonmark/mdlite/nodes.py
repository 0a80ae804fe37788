"""The document tree both parsing phases build and the renderer walks."""


class Node:
    """One block or inline element; `children` in document order."""

    def __init__(self, kind, literal=""):
        self.kind = kind
        self.literal = literal
        self.children = []
        self.parent = None
        # Block state, used while lines are still arriving.
        self.open = True
        self.lines = []
        self.level = 0
        self.info = ""
        self.fence_char = ""
        self.fence_length = 0
        self.fence_offset = 0
        self.destination = ""

    def append(self, child):
        child.parent = self
        self.children.append(child)
        return child

    @property
    def last_child(self):
        return self.children[-1] if self.children else None
