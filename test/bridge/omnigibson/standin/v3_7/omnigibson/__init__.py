"""
Stand-in (ours, no upstream code) for OmniGibson 3.7.2. Signatures from BEHAVIOR-1K v3.7.2 as vendored in NU-IDEAS-Lab/ManiGuard @ f425660fbc55644560c1e5a531bc86d920961b1f, paths OmniGibson/omnigibson/...:
__init__.py:52 (__version__), :144-157 (shutdown); macros.py:141 (gm.HEADLESS).
Only what bridge/omnigibson/capture.py calls; behaviour in ../../core/og_standin.py.
"""
import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))), "core"))

import og_standin as _core  # noqa: E402

__version__ = "3.7.2"
sim = None
app = None


def launch(*args, **kwargs):
    return _core.launch(_sys.modules[__name__])


def shutdown(due_to_signal=False):
    return _core.shutdown(_sys.modules[__name__], due_to_signal)


from omnigibson.envs import Environment  # noqa: E402,F401
