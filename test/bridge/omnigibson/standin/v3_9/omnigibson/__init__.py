"""
Stand-in (ours, no upstream code) for OmniGibson 3.9.2. Signatures from StanfordVL/BEHAVIOR-1K main @ 006d10e5302bdac25a38c6d8e380ff49c3d9364b (OmniGibson __version__ 3.9.2), paths OmniGibson/omnigibson/...; sensors/__init__.py @ dc47b4360a4523404e9e12d50684b03546ad0576, objects/dataset_object.py @ 184164df98d11105b7d4b5ea0ef0463d8cb21edf:
__init__.py (__version__ = "3.9.2", shutdown as 3.7.2), macros.py gm.HEADLESS.
Only what bridge/omnigibson/capture.py calls; behaviour in ../../core/og_standin.py.
"""
import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))), "core"))

import og_standin as _core  # noqa: E402

__version__ = "3.9.2"
sim = None
app = None


def launch(*args, **kwargs):
    return _core.launch(_sys.modules[__name__])


def shutdown(due_to_signal=False):
    return _core.shutdown(_sys.modules[__name__], due_to_signal)


from omnigibson.envs import Environment  # noqa: E402,F401
