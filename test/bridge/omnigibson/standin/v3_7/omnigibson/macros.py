"""Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...: __init__.py:52 (__version__), :144-157 (shutdown); macros.py:141 (gm.HEADLESS)."""
import os


class _Macros:
    pass


gm = _Macros()
gm.HEADLESS = os.getenv("OMNIGIBSON_HEADLESS", "False").lower() in ("true", "1", "t")
