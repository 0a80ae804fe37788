"""HTML rendering of the tree, in the conventions of the spec's examples (`<hr />`, `<br />`, `language-`)."""

from .entities import escape_html

INLINE_TAGS = {"emph": "em", "strong": "strong"}


CLOSE = object()


def render(document):
    # A walk with a stack of its own: block quotes nest as deep as a line has `>`s.
    out = []
    pending = list(reversed(document.children))
    while pending:
        block = pending.pop()
        if block is CLOSE:
            out.append("</blockquote>\n")
        elif block.kind == "block_quote":
            out.append("<blockquote>\n")
            pending.append(CLOSE)
            pending.extend(reversed(block.children))
        else:
            render_leaf(block, out)
    return "".join(out)


def render_leaf(block, out):
    if block.kind == "paragraph":
        out.append("<p>" + render_inlines(block.inlines) + "</p>\n")
    elif block.kind == "heading":
        out.append(f"<h{block.level}>" + render_inlines(block.inlines) + f"</h{block.level}>\n")
    elif block.kind == "thematic_break":
        out.append("<hr />\n")
    elif block.kind == "code_block":
        words = block.info.split()
        attribute = f' class="language-{escape_html(words[0])}"' if words else ""
        out.append(f"<pre><code{attribute}>" + escape_html(block.content) + "</code></pre>\n")


def render_inlines(nodes):
    out = []
    for node in nodes:
        if node.kind == "text":
            out.append(escape_html(node.literal))
        elif node.kind == "code":
            out.append("<code>" + escape_html(node.literal) + "</code>")
        elif node.kind == "softbreak":
            out.append("\n")
        elif node.kind == "linebreak":
            out.append("<br />\n")
        elif node.kind in INLINE_TAGS:
            tag = INLINE_TAGS[node.kind]
            out.append(f"<{tag}>" + render_inlines(node.children) + f"</{tag}>")
        elif node.kind == "autolink":
            out.append(f'<a href="{escape_html(node.destination)}">' + render_inlines(node.children) + "</a>")
    return "".join(out)
