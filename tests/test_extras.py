"""Optional extras: a missing one is None where a feature checks for it, or one line naming what to install."""

import pytest

from jaxsched.core import extras


def test_a_missing_extra_is_none_or_a_one_line_error_naming_the_install():
    assert extras.optional("jaxsched_no_such_extra") is None
    assert extras.optional("json").dumps([1]) == "[1]"
    with pytest.raises(ImportError, match=r"^jaxsched\.feature needs jaxsched_no_such_extra: pip install x$"):
        extras.required("jaxsched_no_such_extra.sub", "pip install x", "jaxsched.feature")
