"""`python -m bench.load ARGS`, from the checkout's root."""
import sys

from .main import main

sys.exit(main())
