"""`python -m leakproof_qa`: the evaluation front door (lm_eval with these tasks, no-weights models, reports)."""

import sys

from .leakproof_eval.__main__ import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
