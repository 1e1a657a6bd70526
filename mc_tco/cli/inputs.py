"""``mc-tco inputs``: a book as a table, checked against its model."""

from __future__ import annotations

import click

from ._common import book_argument, friendly, unit_notes


@click.command()
@book_argument
@friendly
def inputs(book):
    """Show BOOK's inputs: family, 5/50/95% quantiles, unit, group and source."""
    from ..book import load_book
    from ..engine import plan_run
    from ..text import inputs_table

    b = load_book(book)
    plan_run(b, samples=16, resamples=0)  # check the book against its model too
    unit_notes(b)
    click.echo(inputs_table(b))


