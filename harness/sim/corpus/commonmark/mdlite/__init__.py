"""mdlite: a CommonMark 0.31.2 subset (no lists, links, images or HTML) to HTML converter."""
from mdlite.render import render
from mdlite.blocks import parse_blocks


def convert(markdown):
    """The HTML of a Markdown document."""
    return render(parse_blocks(markdown))
