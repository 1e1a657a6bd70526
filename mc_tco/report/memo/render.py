"""The memo as a document of blocks, rendered to Markdown and to self-contained HTML.

Sections are lists of blocks (:class:`Paragraph`, :class:`Bullets`, :class:`Table`,
:class:`Figure`); text uses two inline marks only, ``**bold**`` and ```code```, so the
same text renders in both formats. The HTML embeds the figures as base64 PNG and carries
its CSS inline: it opens in a browser without network and can be mailed as one file.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

from mc_tco.report.memo.background import Pending, resolve

__all__ = ["Block", "Bullets", "Document", "Figure", "Paragraph", "Section", "Table",
           "markdown_section", "to_html", "to_markdown"]


@dataclass
class Paragraph:
    """A paragraph of Markdown text."""

    text: str


@dataclass
class Bullets:
    """A bulleted list."""

    items: list[str]


@dataclass
class Table:
    """A table; ``align`` is one letter per column, ``l`` or ``r``. A cell that is a list of
    strings is rendered as lines."""

    header: list[str]
    rows: list[list]
    align: str = ""
    caption: str = ""


@dataclass
class Figure:
    """A figure saved as ``figures/<name>.png``, numbered in document order. ``png``: its
    bytes, or a figure a child process is drawing (:mod:`.background`): read
    :attr:`data`."""

    name: str
    png: bytes | Pending
    title: str
    caption: str

    @property
    def data(self) -> bytes:
        """The PNG bytes (waiting for them where a child process draws them)."""
        self.png = resolve(self.png)
        return self.png


#: what a section holds
Block = Paragraph | Bullets | Table | Figure


@dataclass
class Section:
    """A titled section: its blocks in order."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    anchor: str = ""


@dataclass
class Document:
    """The memo: title, subtitle and sections, rendered to Markdown and HTML."""

    title: str
    subtitle: str
    sections: list[Section]

    @property
    def figures(self) -> dict[str, bytes]:
        """The PNG figures of every section, by file name."""
        return {b.name: b.data for s in self.sections for b in s.blocks
                if isinstance(b, Figure)}


def markdown_section(md: str, anchor: str, extra_blocks: list[Block] | None = None
                     ) -> Section:
    """A :class:`Section` from Markdown text: a ``## title`` line, then paragraphs,
    ``- `` bullet lists and pipe tables separated by blank lines (what
    :mod:`mc_tco.report.words` writes)."""
    lines = md.strip().splitlines()
    title = lines[0].lstrip("#").strip() if lines and lines[0].startswith("#") else anchor
    body = lines[1:] if lines and lines[0].startswith("#") else lines
    blocks: list[Block] = []
    chunk: list[str] = []
    for line in [*body, ""]:
        if line.strip():
            chunk.append(line.strip())
            continue
        if not chunk:
            continue
        if all(c.startswith("|") for c in chunk):
            cells = [[x.strip() for x in c.strip("|").split("|")] for c in chunk]
            rows = [r for r in cells[1:] if not all(set(x) <= set("-:") for x in r)]
            align = "".join("r" if x.endswith(":") else "l" for x in cells[1]) \
                if len(cells) > 1 else ""
            blocks.append(Table(cells[0], rows, align))
        elif all(c.startswith("- ") for c in chunk):
            blocks.append(Bullets([c[2:] for c in chunk]))
        else:
            blocks.append(Paragraph(" ".join(chunk)))
        chunk = []
    return Section(title, blocks + list(extra_blocks or []), anchor)


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


# ----------------------------------------------------------------------------- markdown


def _md_cell(text) -> str:
    if isinstance(text, list | tuple):
        return "<br>".join(_md_cell(t) for t in text)
    return text.replace("|", "\\|").replace("\n", " ")


def _numbered(doc: Document) -> dict[str, int]:
    names = [b.name for s in doc.sections for b in s.blocks if isinstance(b, Figure)]
    return {n: i for i, n in enumerate(names, 1)}


def to_markdown(doc: Document, figure_dir: str = "figures") -> str:
    """The document as GitHub-flavoured Markdown; figures link to ``figure_dir``."""
    out = [f"# {doc.title}", "", doc.subtitle, ""]
    number = _numbered(doc)
    for sec in doc.sections:
        out += [f"## {sec.title}", ""]
        for b in sec.blocks:
            if isinstance(b, Paragraph):
                out += [b.text, ""]
            elif isinstance(b, Bullets):
                out += [f"- {item}" for item in b.items] + [""]
            elif isinstance(b, Table):
                align = b.align or "l" * len(b.header)
                out.append("| " + " | ".join(_md_cell(h) for h in b.header) + " |")
                out.append("|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|")
                out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in b.rows]
                out.append("")
                if b.caption:
                    out += [f"*{b.caption}*", ""]
            elif isinstance(b, Figure):
                out += [f"![{b.title}]({figure_dir}/{b.name}.png)", "",
                        f"**Figure {number[b.name]}. {b.title}.** {b.caption}", ""]
            else:  # pragma: no cover - a new block type must be rendered here
                raise TypeError(f"cannot render {type(b).__name__}")
    return "\n".join(out).rstrip() + "\n"


# ----------------------------------------------------------------------------- html

_CSS = """
body{font:15px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1d1d1f;
max-width:1180px;margin:2em auto;padding:0 1.2em}
h1{font-size:1.7em;margin-bottom:.1em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;
padding-bottom:.2em}.subtitle{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.8em 0;font-size:.88em}
th,td{border:1px solid #d0d0d0;padding:.3em .55em;vertical-align:top}
th{background:#f3f3f3;text-align:left}td.r{text-align:right;white-space:nowrap}
tr:nth-child(even) td{background:#fafafa}
figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption,.caption{color:#444;font-size:.9em}
code{background:#f4f4f4;padding:0 .25em;border-radius:3px;font-size:.92em}
nav{background:#f7f7f7;padding:.5em 1em;border-radius:4px;font-size:.9em}
nav a{margin-right:1em}
"""


def _inline(text: str) -> str:
    """Escape ``text`` and turn ``**bold**`` and ```code``` into HTML."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) >= 2:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            esc = html.escape(part)
            out.append(re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", esc))
    return "".join(out)


def _html_cell(text) -> str:
    if isinstance(text, list | tuple):
        return "<br>".join(_inline(t) for t in text)
    return _inline(text)


def to_html(doc: Document) -> str:
    """The document as one self-contained HTML page (inline CSS, figures as base64 PNG)."""
    number = _numbered(doc)
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(doc.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_inline(doc.title)}</h1>",
        f'<p class="subtitle">{_inline(doc.subtitle)}</p>',
        "<nav>" + "".join(
            f'<a href="#{s.anchor or _anchor(s.title)}">{html.escape(s.title)}</a>'
            for s in doc.sections
        ) + "</nav>",
    ]
    for sec in doc.sections:
        out.append(f'<h2 id="{sec.anchor or _anchor(sec.title)}">{_inline(sec.title)}</h2>')
        for b in sec.blocks:
            if isinstance(b, Paragraph):
                out.append(f"<p>{_inline(b.text)}</p>")
            elif isinstance(b, Bullets):
                out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in b.items)
                           + "</ul>")
            elif isinstance(b, Table):
                align = b.align or "l" * len(b.header)
                rows = ["<tr>" + "".join(f"<th>{_inline(h)}</th>" for h in b.header) + "</tr>"]
                for row in b.rows:
                    rows.append("<tr>" + "".join(
                        f'<td class="{a}">{_html_cell(c)}</td>' for c, a in zip(row, align,
                                                                                 strict=True)
                    ) + "</tr>")
                out.append("<table>" + "".join(rows) + "</table>")
                if b.caption:
                    out.append(f'<p class="caption"><em>{_inline(b.caption)}</em></p>')
            elif isinstance(b, Figure):
                data = base64.b64encode(b.data).decode("ascii")
                out.append(
                    f'<figure id="fig-{b.name}"><img alt="{html.escape(b.title)}" '
                    f'src="data:image/png;base64,{data}"><figcaption><strong>Figure '
                    f"{number[b.name]}. {_inline(b.title)}.</strong> {_inline(b.caption)}"
                    "</figcaption></figure>"
                )
            else:  # pragma: no cover
                raise TypeError(f"cannot render {type(b).__name__}")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
