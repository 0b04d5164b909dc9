"""A report's pages (game-agnostic): its Markdown as a standalone HTML page, its directory built
beside its destination and swapped into place, and the page a report is written on (Page: its
Markdown, tables and figures, and the marker that lets the next report replace it)."""

import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from analysis.tables import markdown_table, plural, round_floats


def heading_id(text: str) -> str:
    """The anchor of a heading, as GitHub makes it (lower case, punctuation dropped, spaces to
    hyphens); render_html gives its h2 the same id, so the contents link in both."""
    import re

    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def render_html(markdown: str, title: str = "soup report") -> str:
    """The report's Markdown as a standalone HTML page (tables, figures linked relatively)."""
    import html
    import re

    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)

    def with_id(m: re.Match) -> str:
        text = html.unescape(re.sub("<[^>]+>", "", m.group(1)))
        return f'<h2 id="{heading_id(text)}">{m.group(1)}</h2>'

    body = re.sub(r"<h2>(.*?)</h2>", with_id, body)
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;"
        "line-height:1.45}"
        "table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}"
        "th,td{border:1px solid #ccc;padding:2px 6px}th{background:#f2f2f2}"
        "img{max-width:100%}"
        "blockquote{background:#fff3cd;border-left:4px solid #e0a800;margin:1em 0;padding:0.5em 1em}"
        "code{background:#f5f5f5;padding:0 3px}"
    )
    head = f"<meta charset='utf-8'><title>{title}</title><style>{style}</style>"
    return f"<!DOCTYPE html>\n<html><head>{head}</head>\n<body>\n{body}</body></html>\n"


@contextmanager
def built_beside(out: Path) -> Iterator[Path]:
    """A temporary directory beside ``out`` to build a report in; when the block ends without an
    error it replaces ``out`` (the old report is kept until the new one is in place), and it is
    removed in any case: an interrupted report leaves the old one or none, never half of one."""
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            out.rename(old)
            tmp.rename(out)
            shutil.rmtree(old)
        else:
            tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


MARKER = ".soup-report"  # in a report's directory: it is a report, and the next one may replace it
# (step, done, total): games read (step reading, or reading K/N in the K-th of N passes), then sections
Progress = Callable[[str, int, int], None]


class Page:
    """A report being written: Markdown parts in reading order, tables and figures written under
    ``root`` as they are added (each section function appends to one), and the MARKER."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "figures").mkdir(parents=True)
        (root / "tables").mkdir()
        (root / MARKER).write_text("written by soup report; soup report may replace this directory\n")
        self.parts: list[str] = []

    def text(self, s: str) -> None:
        """A paragraph (or heading) of Markdown."""
        self.parts.append(s.strip("\n") + "\n")

    def csv(self, name: str, df: pl.DataFrame) -> None:
        """``df`` in full as ``tables/{name}.csv`` (floats to 6 significant digits,
        analysis.tables.round_floats), with nothing in the Markdown."""
        round_floats(df).write_csv(self.root / "tables" / f"{name}.csv")

    def table(
        self,
        name: str,
        df: pl.DataFrame,
        columns: Sequence[tuple[str, str, str]],
        shown: pl.DataFrame | None = None,
    ) -> None:
        """``df`` in full as CSV; ``shown`` (default: all of it) as a Markdown table of ``columns``
        (analysis.tables.markdown_table)."""
        self.csv(name, df)
        note = (
            "Full table" if shown is None else f"{len(shown)} of {plural(len(df), 'row')} shown; full table"
        )
        self.parts.append(
            markdown_table(df if shown is None else shown, columns)
            + f"\n\n*{note}: [tables/{name}.csv](tables/{name}.csv)*\n"
        )

    def figure(self, name: str, fig: Any, caption: str) -> None:
        """``fig`` as ``figures/{name}.png`` (written atomically), shown with its caption."""
        from analysis.figure_files import save_atomic  # matplotlib: only for a report with figures

        save_atomic(fig, self.root / "figures" / f"{name}.png")
        self.parts.append(f"![{caption}](figures/{name}.png)\n\n*{caption}*\n")

    def markdown(self) -> str:
        """The page so far as one Markdown document; a whole report (it starts with its ``# `` title)
        gets a table of contents of its sections after the title paragraphs (issue 21: a long
        report with none)."""
        headings = [p.split("\n", 1)[0][3:].strip() for p in self.parts if p.startswith("## ")]
        first = next((i for i, p in enumerate(self.parts) if p.startswith("## ")), len(self.parts))
        toc = "**Contents:** " + " · ".join(f"[{h}](#{heading_id(h)})" for h in headings) + "\n"
        titled = bool(self.parts) and self.parts[0].startswith("# ")  # a whole report, not one section
        return "\n".join(
            [*self.parts[:first], toc, *self.parts[first:]] if headings and titled else self.parts
        )


def write_sections(sections: Sequence[tuple[str, Callable[[], None]]], progress: Progress | None) -> None:
    """Run each ``(name, write)`` of ``sections`` in order, telling ``progress`` the section
    being written, then ``writing`` (the files) when all are."""
    for i, (name, write) in enumerate(sections):
        if progress is not None:
            progress(name, i, len(sections))
        write()
    if progress is not None:
        progress("writing", len(sections), len(sections))


@contextmanager
def page_built_beside(out: Path, title: str) -> Iterator[Page]:
    """A Page in a directory built beside ``out`` (:func:`built_beside`); when the block ends without
    an error, its Markdown is written and the directory replaces ``out``, which then holds::

        report.md        the report (figures linked from figures/)
        report.html      the same, self-contained apart from the figures (titled ``title``)
        figures/*.png    matplotlib figures
        tables/*.csv     every table of the report in full
        .soup-report     MARKER: this directory is a report and may be replaced by the next one

    An interrupted report leaves the old one or none, never half of one."""
    with built_beside(out) as tmp:
        page = Page(tmp)
        yield page
        markdown = page.markdown()
        (tmp / "report.md").write_text(markdown)
        (tmp / "report.html").write_text(render_html(markdown, title))
