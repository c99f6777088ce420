"""Stand-in (ours, no upstream code) for OmniGibson 3.9.2's utils/object_state_utils.py @
08c9952c67beb1706511ac4d3daab898717dc92f: sample_kinematics(predicate, objA, objB, max_trials=None, z_offset=0.05,
skip_falling=False, use_last_ditch_effort=False, use_trav_map=True) -> bool. Behaviour in ../../../core/og_standin.py."""
import og_standin as _core


def sample_kinematics(predicate, objA, objB, max_trials=None, z_offset=0.05, skip_falling=False, use_last_ditch_effort=False, use_trav_map=True):
    return _core.sample_kinematics(predicate, objA, objB)
