"""jaxsched: JAX environments, baselines and learners for cluster scheduling research."""

from jaxsched.core.determinism import apply_for_command

apply_for_command()  # a `python -m jaxsched.X` command: the host-independent XLA:CPU settings, before XLA starts

from jaxsched.core.devices import join_from_environment  # noqa: E402
from jaxsched.errors import JaxschedError  # noqa: E402

try:  # a process started to join a multi-process run does so before anything starts XLA (core/devices.py)
    join_from_environment()
except JaxschedError as error:
    raise SystemExit(f"error: {error}") from None

# after joining: importing gymnax starts XLA. Importing the registry registers every id with Gymnasium
# ("jaxsched/deeprm-v1"), building nothing.
from jaxsched.registry import env_ids, make, registered  # noqa: E402
from jaxsched.gymnax_env import make_gymnax  # noqa: E402
from jaxsched.gymnasium_env import make_gymnasium  # noqa: E402
from jaxsched.vector_env import make_vec  # noqa: E402

__all__ = ["env_ids", "make", "make_gymnasium", "make_gymnax", "make_vec", "registered"]
__version__ = "0.1.0"
