"""verifies(): a single verification as a bool, for assertions. The
library's verify() returns None or raises InvalidSignature, as
pyca/cryptography's does; any other exception passes through."""

from kuaisuo import InvalidSignature


def verifies(verify, *args, **kwargs) -> bool:
    """True if verify(*args, **kwargs) returns None, False if it raises
    InvalidSignature."""
    try:
        result = verify(*args, **kwargs)
    except InvalidSignature:
        return False
    assert result is None, f"verify returned {result!r}, not None"
    return True
