"""A model module that fails while it is imported (a typo in a constant)."""

RATE = 1 / 0  # ZeroDivisionError at import time


def model(inputs):
    return inputs
