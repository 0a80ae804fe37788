"""mdlite: a CommonMark 0.31.2 subset (blocks without lists or HTML; inlines without links or HTML) to HTML."""

from .blocks import parse_blocks
from .render import render


def convert(markdown):
    """The HTML for a Markdown document (str in, str out)."""
    return render(parse_blocks(markdown))
