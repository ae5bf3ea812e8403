"""What the families read, below them all: the datasets (:mod:`~jaxsched.workloads.datasets`: where each trace
comes from, its checksum, ``dataset:NAME`` lookup; ``data_files/`` holds the shipped ones) and the trace
formats (:mod:`~jaxsched.workloads.swf`: Standard Workload Format logs). It imports nothing but
:mod:`jaxsched.errors`, so that every family can import it."""
