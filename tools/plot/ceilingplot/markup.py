"""A document written at once as Markdown and as self-contained HTML: text, tables, figures."""

import base64
import html
import re
from pathlib import Path


class Code(str):
    """Table cell or text shown as code (paths, commands, ids)."""


def _md_text(s):
    """Text that Markdown shows as is: escapes what would start markup, and nothing else, so
    that the file stays readable (α_eff, N_ref and "< 10 %" need no backslash)."""
    s = re.sub(r"([\\`*\[\]|])", r"\\\1", str(s))
    s = re.sub(r"(?<!\w)_|_(?!\w)", r"\\_", s)        # _ that could open or close emphasis
    s = re.sub(r"<(?=[A-Za-z/!?])", r"\\<", s)         # < that could open an HTML tag
    s = re.sub(r"&(?=#?\w+;)", r"\\&", s)               # & that could start an entity
    s = re.sub(r"^(\d+)\.(?=\s)", r"\1\\.", s, flags=re.M)  # an ordered list item
    return re.sub(r"^([#>+-])(?=\s)", r"\\\1", s, flags=re.M)  # a heading, quote, list


def _md_code(s):
    s = str(s).replace("\n", " ")
    fence = "`"
    while fence in s:
        fence += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _md_cell(v):
    """A table cell: one line (a line break is <br>), | escaped even inside code (GFM)."""
    if isinstance(v, Code):
        return _md_code(v).replace("|", "\\|")
    return "<br>".join(_md_text(line) for line in str(v).split("\n"))


def _md_table(headers, rows, right=()):
    lines = ["| " + " | ".join(_md_text(h) for h in headers) + " |",
             "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _html_cell(v, tag="td", right=False):
    body = f"<code>{html.escape(str(v))}</code>" if isinstance(v, Code) else \
        html.escape(str(v)).replace("\n", "<br>")
    cls = ' class="num"' if right else ""
    return f"<{tag}{cls}>{body}</{tag}>"


def _html_table(headers, rows, right=()):
    out = ["<table>", "<thead><tr>" + "".join(_html_cell(h, "th") for h in headers) +
           "</tr></thead>", "<tbody>"]
    for row in rows:
        out.append("<tr>" + "".join(_html_cell(v, right=i in right) for i, v in enumerate(row))
                   + "</tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


class Doc:
    """A report built once and written both as Markdown and as HTML."""

    def __init__(self):
        self.md = []
        self.html = []

    def heading(self, level, text):
        self.md.append(f"{'#' * level} {_md_text(text)}\n")
        self.html.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def para(self, *parts):
        """A paragraph of str (text) and Code parts."""
        self.md.append("".join(_md_code(p) if isinstance(p, Code) else _md_text(p)
                               for p in parts) + "\n")
        self.html.append("<p>" + "".join(
            f"<code>{html.escape(p)}</code>" if isinstance(p, Code) else html.escape(p)
            for p in parts) + "</p>")

    def items(self, rows):
        """A definition-like list of (name, value) where value is str or Code."""
        for name, value in rows:
            v = _md_code(value) if isinstance(value, Code) else _md_text(value)
            self.md.append(f"- **{_md_text(name)}:** {v}")
        self.md.append("")
        self.html.append("<ul>" + "".join(
            f"<li><strong>{html.escape(name)}:</strong> " +
            (f"<code>{html.escape(value)}</code>" if isinstance(value, Code)
             else html.escape(value)) + "</li>" for name, value in rows) + "</ul>")

    def table(self, headers, rows, right=()):
        self.md.append(_md_table(headers, rows, right) + "\n")
        self.html.append(_html_table(headers, rows, right))

    def figure(self, png, title, caption):
        data = base64.b64encode(Path(png).read_bytes()).decode("ascii")
        self.md.append(f"![{_md_text(title)}]({Path(png).name})\n")
        self.md.append(f"*{_md_text(caption)}*\n")
        self.html.append(f'<figure><img alt="{html.escape(title)}" '
                         f'src="data:image/png;base64,{data}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")


CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; max-width: 1180px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0 1.4em; font-size: 0.88em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.55em; vertical-align: top; }
th { background: #f0f0f0; text-align: left; } td.num { text-align: right; }
tbody tr:nth-child(even) { background: #fafafa; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.92em; word-break: break-all; }
figure { margin: 1.2em 0 2em; } img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; margin-top: 0.3em; }
"""
