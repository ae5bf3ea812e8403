"""The same numbers on any x86-64 host: XLA:CPU flags that take the host out of the results.

XLA:CPU compiles for the CPU it runs on and splits work over the cores it sees, so a config and seed
that repeat bit for bit on one machine may not on another (the quick start's seed 1: 2.457 on an Intel
host, 2.398 and 2.340 on two AMD ones; REINFORCE grows a last-bit difference into a different policy).
Measured on a 2-core AMD EPYC (AVX-512) by hashing the quick start's parameters after 10 iterations
(issue 56; the table is in the report of that issue):

- **the instruction set**: ``--xla_cpu_max_isa`` changes the numbers (SSE4_2, AVX and AVX2 = AVX512 =
  the default give three different results: AVX2 and up contract multiply-adds into FMA instructions,
  and XLA's math (rsqrt, ...) is platform-dependent by default);
- **the number of cores**: one core (``taskset -c 0``) differs from two: XLA sizes its thread pools by
  the cores the process may use and splits work by the pool's size. ``NPROC`` fixes the size (with
  ``NPROC=2``, one core gives the two-core numbers bit for bit); ``--xla_cpu_multi_thread_eigen=false``
  changed nothing.

The portable setting: :data:`PORTABLE_FLAGS` (a ceiling on the instruction set at AVX, which every host
that runs jaxlib has, and no platform-dependent math) and ``NPROC=2``. With it one and two cores give the
same bits (measured). The ceiling is what makes hosts agree: no flag takes the ISA out otherwise (with
platform-dependent math off, AVX2 still differs from AVX, FMA, and SSE4_2 from AVX, vector width), and
under the ceiling an AVX2 or AVX-512 host compiles what an AVX one does. The commands (``python -m
jaxsched.X``) apply it before XLA
starts (``jaxsched/__init__.py`` calls :func:`apply_for_command`); a flag or ``NPROC`` the user already
gives wins over ours. Only the CPU backend is concerned (a GPU's computations are unaffected).
``JAXSCHED_FAST_CPU=1`` keeps XLA's defaults: faster on hosts with FMA and many cores, and the numbers
then depend on the host's CPU and core count. In a notebook or your own script, call
:func:`apply_portable_flags` before the first JAX computation. Not covered: what the runtime libraries
choose from the host itself rather than from the flags (Eigen's blocking of long matrix products by the
CPU's cache sizes), which one host cannot vary.
"""

from __future__ import annotations

import os
import sys
import warnings

FAST_VARIABLE = "JAXSCHED_FAST_CPU"  # "1": keep XLA:CPU's host-dependent defaults (faster on big hosts)

PORTABLE_FLAGS = (
    "--xla_cpu_max_isa=AVX",  # no FMA contraction, the same vector code: what every host that runs jaxlib has
    "--xla_cpu_enable_platform_dependent_math=false",  # XLA's own switch "for consistent results across CPUs"
)
THREADS_VARIABLE = "NPROC"  # read by XLA's thread pools (tsl) instead of the cores it may run on
PORTABLE_THREADS = "2"  # the intra-op pool XLA makes on this project's 2-core reference CPU


def flag_name(flag: str) -> str:
    """``--xla_cpu_max_isa=AVX`` -> ``xla_cpu_max_isa`` (also for a bare boolean ``--flag``)."""
    return flag.lstrip("-").split("=", 1)[0]


def portable_xla_flags(xla_flags: str, flags=PORTABLE_FLAGS) -> str:
    """``xla_flags`` (an XLA_FLAGS value) with each of ``flags`` appended unless it already names that
    flag (the user's setting wins, whatever its value); nothing is removed or duplicated."""
    given = xla_flags.split()
    names = {flag_name(flag) for flag in given}
    return " ".join(given + [flag for flag in flags if flag_name(flag) not in names])


def fast_cpu(environ=None) -> bool:
    """Whether ``JAXSCHED_FAST_CPU`` asks for XLA's host-dependent defaults."""
    value = (os.environ if environ is None else environ).get(FAST_VARIABLE, "").strip().lower()
    return value not in ("", "0", "false", "no", "off")


def _backend_started() -> bool:
    if "jax" not in sys.modules:
        return False
    # jax imports its backend module with itself; read it from sys.modules (importing anything of jax here
    # would start what this module must run before)
    xla_bridge = sys.modules.get("jax._src.xla_bridge")
    started = getattr(xla_bridge, "backends_are_initialized", None)  # a JAX without it: assume not started
    return bool(started()) if started is not None else False


def apply_portable_flags(environ=None) -> bool:
    """Adds :data:`PORTABLE_FLAGS` to ``XLA_FLAGS`` and sets ``NPROC`` (:data:`PORTABLE_THREADS`) in
    ``environ`` (``os.environ``: this process and the processes it starts), each unless the user set it,
    and unless ``JAXSCHED_FAST_CPU`` is set. Returns whether the settings are in place.
    XLA reads its flags once, when JAX's backend starts: called later, it warns that this process keeps
    the flags it started with."""
    environ = os.environ if environ is None else environ
    if fast_cpu(environ):
        return False
    before = (environ.get("XLA_FLAGS", ""), environ.get(THREADS_VARIABLE))
    after = portable_xla_flags(before[0])
    if after != before[0]:
        environ["XLA_FLAGS"] = after
    if not environ.get(THREADS_VARIABLE, "").strip():
        environ[THREADS_VARIABLE] = PORTABLE_THREADS
    changed = (after.split(), environ[THREADS_VARIABLE]) != (before[0].split(), before[1])
    if environ is os.environ and changed and _backend_started():
        warnings.warn("jaxsched: JAX's backend has already started, so the portable XLA:CPU flags apply only to "
                      "processes started from here on; call apply_portable_flags() before any JAX computation",
                      stacklevel=2)
    return True


def command_module(orig_argv=None) -> str | None:
    """The module of a ``python -m MODULE`` command line (``sys.orig_argv``), else None."""
    argv = list(getattr(sys, "orig_argv", []) if orig_argv is None else orig_argv)
    skip = False
    for index, argument in enumerate(argv[1:], start=1):
        if skip:  # the value of -X / -W
            skip = False
            continue
        if argument in ("-X", "-W"):
            skip = True
            continue
        if argument == "-m":
            return argv[index + 1] if index + 1 < len(argv) else None
        if argument.startswith("-m") and not argument.startswith("--"):
            return argument[2:]
        if argument == "-c" or not argument.startswith("-"):  # a script or -c: not a module command
            return None
    return None


def apply_for_command(orig_argv=None) -> bool:
    """:func:`apply_portable_flags` when this process is a jaxsched command (``python -m jaxsched...``);
    importing jaxsched as a library changes nothing. Called by ``jaxsched/__init__.py`` before
    anything starts XLA."""
    module = command_module(orig_argv)
    if module is None or not (module == "jaxsched" or module.startswith("jaxsched.")):
        return False
    if fast_cpu():
        print(f"note: {FAST_VARIABLE} is set: XLA:CPU's own defaults, so the numbers depend on this host's CPU "
              "and core count (jaxsched/core/determinism.py)", file=sys.stderr)
        return False
    return apply_portable_flags()
