"""The HTML renderer, with the conventions the spec's examples use (`<hr />`, `<br />`, ...)."""
import re
from urllib.parse import quote

SAFE_IN_URL = ";/?:@&=+$,-_.!~*'()#%"


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def url(destination):
    """Percent-encodes what is not allowed in a URL; existing %XX escapes stay as they are."""
    return quote(re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", destination), safe=SAFE_IN_URL)


def inline_html(node):
    kind = node.kind
    if kind == "text":
        return escape(node.literal)
    if kind == "softbreak":
        return "\n"
    if kind == "linebreak":
        return "<br />\n"
    if kind == "code":
        return "<code>" + escape(node.literal) + "</code>"
    inner = "".join(inline_html(child) for child in node.children)
    if kind == "emph":
        return "<em>" + inner + "</em>"
    if kind == "strong":
        return "<strong>" + inner + "</strong>"
    if kind == "link":
        return '<a href="' + escape(url(node.destination)) + '">' + inner + "</a>"
    raise ValueError("no rendering for inline " + kind)


def code_block_html(node):
    language = node.info.split()[0] if node.info.split() else ""
    attribute = ' class="language-' + escape(language) + '"' if language else ""
    body = "".join(line + "\n" for line in node.lines)
    return "<pre><code" + attribute + ">" + escape(body) + "</code></pre>\n"


def block_html(node):
    kind = node.kind
    if kind == "document":
        return "".join(block_html(child) for child in node.children)
    if kind == "paragraph":
        return "<p>" + "".join(inline_html(child) for child in node.children) + "</p>\n"
    if kind == "heading":
        tag = "h" + str(node.level)
        return "<" + tag + ">" + "".join(inline_html(child) for child in node.children) + "</" + tag + ">\n"
    if kind == "thematic_break":
        return "<hr />\n"
    if kind == "code_block":
        return code_block_html(node)
    if kind == "block_quote":
        return "<blockquote>\n" + "".join(block_html(child) for child in node.children) + "</blockquote>\n"
    raise ValueError("no rendering for block " + kind)


def render(document):
    return block_html(document)
