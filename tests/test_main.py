"""``python -m jaxsched``: the version for --version, the commands otherwise."""

from jaxsched import __version__
from jaxsched.__main__ import main


def test_version_and_the_command_list(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"jaxsched {__version__}\n"
    assert main([]) == 0
    listing = capsys.readouterr().out
    assert all(f"python -m jaxsched.{name}" in listing for name in ("train", "evaluate", "bench", "data"))
    assert main(["--bogus"]) == 2
