"""A toy environment family that lives only in the tests: proof that a family plugs into jaxsched
through the registry, the Variant protocol and the learners, without touching the library."""
