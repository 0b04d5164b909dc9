"""A report's pages (game-agnostic): its Markdown as a standalone HTML page, and its directory
built beside its destination and swapped into place."""

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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
