"""jaxsched: JAX environments, baselines and learners for cluster scheduling research."""

from jaxsched.registry import make, registered

__all__ = ["make", "registered"]
__version__ = "0.1.0"
