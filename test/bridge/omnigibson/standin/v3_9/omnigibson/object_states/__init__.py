"""Stand-in (ours, no upstream code) for OmniGibson 3.9.2's object states the bridge's hands use, signatures from
StanfordVL/BEHAVIOR-1K, OmniGibson/omnigibson/object_states/...: open_state.py Open.set_value(new_value, fully=False),
get_value(); on_top.py @ 0130f776e0fdd03f6eefc374e253358e44a63a5a OnTop.set_value(other, new_value,
reset_before_sampling=False, use_trav_map=False) (set_value(False) raises NotImplementedError), get_value(other);
inside.py @ 12438e17708ce0959ff0d0d8a0e6a84b11268356 Inside.set_value(other, new_value, reset_before_sampling=False,
use_trav_map=False) (asserts the container's fillable meta link), get_value(other). An object's states are
obj.states[StateClass]. Behaviour in ../../../core/og_standin.py."""
import og_standin as _core


class Open(_core.StandinOpen):
    pass


class OnTop(_core.StandinOnTop):
    pass


class Inside(_core.StandinInside):
    pass


STATES = {"Open": Open, "OnTop": OnTop, "Inside": Inside}
