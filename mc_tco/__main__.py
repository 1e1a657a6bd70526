"""``python -m mc_tco``: the mc-tco command."""

from .cli import main

if __name__ == "__main__":
    main()
