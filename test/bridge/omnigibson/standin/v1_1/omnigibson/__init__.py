"""
Stand-in (ours, no upstream code) for OmniGibson 1.1.1. Signatures from ZhengtongXu/OmniGibson @ 255a4e4fb42fa4d2f1a43a94de37085474db4377 (StanfordVL/OmniGibson main after the 1.1.1 bump), paths omnigibson/...:
__init__.py:31 (__version__), :122-135 (shutdown: cleanup() then app.close(), or exit(0) without an app); macros.py:70 (gm.HEADLESS from $OMNIGIBSON_HEADLESS).
Only what bridge/omnigibson/capture.py calls; behaviour in ../../core/og_standin.py.
"""
import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))), "core"))

import og_standin as _core  # noqa: E402

__version__ = "1.1.1"
sim = None
app = None


def launch(*args, **kwargs):
    return _core.launch(_sys.modules[__name__])


def shutdown(due_to_signal=False):
    return _core.shutdown(_sys.modules[__name__], due_to_signal)


from omnigibson.envs import Environment  # noqa: E402,F401
