"""``python -m fairsched``: the same as the ``fairsched`` console command."""

from fairsched.cli import main

if __name__ == "__main__":
    main()
