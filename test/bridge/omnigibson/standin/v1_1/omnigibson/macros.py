"""Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...: __init__.py:31 (__version__), :122-135 (shutdown: cleanup() then app.close(), or exit(0) without an app); macros.py:70 (gm.HEADLESS from $OMNIGIBSON_HEADLESS)."""
import os


class _Macros:
    pass


gm = _Macros()
gm.HEADLESS = os.getenv("OMNIGIBSON_HEADLESS", "False").lower() in ("true", "1", "t")
