"""``mc-tco inputs``: a book as a table, checked against its model when that is mc_tco's own.

A read-only command: it executes no model code of the user's. A book whose model is
mc_tco's own (the TCO model, the test functions) is checked against that model's spec as
``mc-tco run`` checks it; for any other model (a file next to the book, an installed
package) one line says what ``mc-tco run`` would execute, and that the checks against the
model's spec happen there.
"""

from __future__ import annotations

import click

from mc_tco.cli._common import book_argument, friendly, unit_notes


def _is_mc_tco(module: str) -> bool:
    return module == "mc_tco" or module.startswith("mc_tco.")


@click.command()
@book_argument
@friendly
def inputs(book: str) -> None:
    """Show BOOK's inputs: family, 5/50/95% quantiles, unit, group and source.

    Runs no model code: a book with its own model (model = "file:function") is listed,
    and mc-tco run checks it against the model's spec.
    """
    from mc_tco.book import load_book
    from mc_tco.models import DEFAULT_MODEL, own_model_file
    from mc_tco.report.terminal import inputs_table

    b = load_book(book)
    model = b.model or DEFAULT_MODEL
    module = model.partition(":")[0]
    note = None
    if _is_mc_tco(module):
        from mc_tco.engine import plan_run

        plan_run(b, samples=16, resamples=0)  # mc_tco's own model: check the book too
    else:
        own = own_model_file(b)
        what = (f"would execute the model file {own.resolve()}" if own is not None
                else f"would import the installed module '{module}'")
        note = (f"model {model}: mc-tco run {what}; mc-tco inputs runs no model code, so "
                "the checks of the book against the model's spec need mc-tco run")
    unit_notes(b)
    click.echo(inputs_table(b))
    if note is not None:
        from mc_tco.errors import one_line

        click.echo(one_line(note))
