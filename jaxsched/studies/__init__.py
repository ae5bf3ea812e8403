"""Studies built on the library: each a command (``python -m jaxsched.studies.<name>``) that
answers one experimental question."""
