"""The memo's plain labels cover the TCO model's inputs, and no input it no longer has."""

from __future__ import annotations

from mc_tco.models.tco_inputs import INPUTS, RETIRED
from mc_tco.report.memo.labels import PLAIN, plain


def test_every_input_of_the_model_has_a_label_and_no_retired_one_has():
    assert list(PLAIN) == list(INPUTS)  # same names, in the model's order
    assert not set(PLAIN) & set(RETIRED)
    labels = list(PLAIN.values())
    assert len(set(labels)) == len(labels)  # two inputs never read the same


def test_an_input_without_a_label_reads_as_its_words():
    assert plain("peak_to_average") == "busiest hours' load (× the average)"
    assert plain("some_other_input") == "some other input"
