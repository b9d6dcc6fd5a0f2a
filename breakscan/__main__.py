"""`python -m breakscan` runs the command-line interface."""

from breakscan.cli import main

if __name__ == "__main__":
    main()
