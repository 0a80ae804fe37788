"""A position in one line, in characters and in columns (tabs stop every 4 columns)."""

TAB_STOP = 4


class Cursor:
    def __init__(self, line):
        self.line = line
        self.offset = 0
        self.column = 0
        # A tab that an indentation or a block quote marker consumed only in part.
        self.partial_tab = False
        self.find_next_nonspace()

    def find_next_nonspace(self):
        """Where the next non-space character is, and how far indented it is from here."""
        i, column = self.offset, self.column
        while i < len(self.line) and self.line[i] in " \t":
            column += TAB_STOP - column % TAB_STOP if self.line[i] == "\t" else 1
            i += 1
        self.next_nonspace = i
        self.next_nonspace_column = column
        self.indent = column - self.column
        self.blank = i >= len(self.line)
        self.indented = self.indent >= TAB_STOP

    def peek(self, at=None):
        at = self.offset if at is None else at
        return self.line[at] if at < len(self.line) else ""

    def advance(self, count, columns=False):
        """Moves `count` characters on, or `count` columns when `columns` (splitting a tab)."""
        while count > 0 and self.offset < len(self.line):
            if self.line[self.offset] == "\t":
                width = TAB_STOP - self.column % TAB_STOP
                if columns:
                    self.partial_tab = width > count
                    used = min(width, count)
                    self.column += used
                    self.offset += 0 if self.partial_tab else 1
                    count -= used
                else:
                    self.partial_tab = False
                    self.column += width
                    self.offset += 1
                    count -= 1
            else:
                self.partial_tab = False
                self.offset += 1
                self.column += 1
                count -= 1

    def advance_to_nonspace(self):
        self.offset = self.next_nonspace
        self.column = self.next_nonspace_column
        self.partial_tab = False

    def rest(self):
        """The rest of the line, a partly consumed tab given back as the spaces it still spans."""
        if self.partial_tab:
            width = TAB_STOP - self.column % TAB_STOP
            return " " * width + self.line[self.offset + 1:]
        return self.line[self.offset:]
