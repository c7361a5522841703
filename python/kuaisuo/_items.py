"""Batch inputs shared by the algorithm modules: variable-length messages
laid out flat (data + offsets, as the C API takes them) and fixed-size items
(keys, signatures) given as a list or as one flat buffer."""

from __future__ import annotations

import functools
import warnings
from array import array
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple,
                    Union, cast)

from . import _native

if TYPE_CHECKING:
    # Any object with the buffer protocol (PEP 688), and numpy arrays, whose
    # stubs declare __buffer__ only from Python 3.12 on.
    import numpy
    from typing_extensions import Buffer as _BufferProtocol

    Buffer = Union[_BufferProtocol, bytes, bytearray, memoryview, "numpy.ndarray[Any, Any]"]
    # What batch calls return with as_numpy=True: statuses as int32, fixed-
    # size results (keys, signatures, digests) as (count, size) uint8 rows.
    StatusArray = numpy.ndarray[Any, numpy.dtype[numpy.int32]]
    ByteRows = numpy.ndarray[Any, numpy.dtype[numpy.uint8]]
else:
    Buffer = Union[bytes, bytearray, memoryview]
    StatusArray = ByteRows = Any


class CudaArray(Protocol):
    """For type checkers: an array in GPU memory as CuPy and PyTorch CUDA
    tensors present it (the __cuda_array_interface__ protocol). The batch
    methods' overloads that take one return arrays of the same library,
    whose types they leave as Any."""

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]: ...


def deprecated(new: Callable[..., Any], old_name: str, new_name: str) -> Callable[..., Any]:
    """An alias of new under its old name, kept for one release: each call
    warns (DeprecationWarning) and then does what new does."""
    @functools.wraps(new)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"{old_name} is deprecated and goes in the next release: use {new_name}",
                      DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)

    alias.__doc__ = f"Deprecated alias of {new_name} (removed in the next release)."
    return alias


def require_valid(status: int) -> None:
    """A single verification's status as pyca/cryptography reports it:
    nothing for 0, InvalidSignature (a KuaisuoError) with the library's
    code and message otherwise."""
    if status != 0:
        raise _native.InvalidSignature(status, _native.strerror(status))


def named_mode(modes: Dict[str, int], name: Any, cipher: str) -> int:
    """The native code of a mode given by name (case-insensitive): a
    ValueError for an unknown name, a TypeError for anything but a str
    (mode=5 is not a mode name)."""
    choices = ", ".join(modes)
    if not isinstance(name, str):
        raise TypeError(f"{cipher} mode must be a name ({choices}), not {type(name).__name__}")
    try:
        return modes[name.lower()]
    except KeyError:
        raise ValueError(f"unknown {cipher} mode {name!r} (one of {choices})") from None


def view(data: Buffer) -> memoryview:
    """A byte view of any buffer (numpy arrays included), without a copy."""
    return memoryview(cast(Any, data)).cast("B")


def flat(messages: Sequence[Buffer]) -> Tuple[bytes, "array[int]"]:
    """(data, offsets) for a sequence of buffers: item i is
    data[offsets[i]:offsets[i + 1]]."""
    offsets = array("Q", [0])
    parts = []
    for m in messages:
        parts.append(bytes(m) if isinstance(m, (bytes, bytearray)) else bytes(view(m)))
        offsets.append(offsets[-1] + len(parts[-1]))
    return b"".join(parts), offsets


def messages_in(messages: Any, offsets: Any = None) -> Tuple[Any, Any]:
    """(data, offsets) for the native batch calls: a sequence of buffers is
    laid out flat here; with offsets given, messages is already the flat
    data (a bytes-like object or numpy array, read in place)."""
    if offsets is not None:
        return messages, offsets
    if _is_buffer(messages):
        raise TypeError("messages must be a sequence of bytes-like objects "
                        "(or flat data with offsets=...)")
    return flat(messages)


def count_in(offsets: Any) -> int:
    """The item count offsets describe (count + 1 entries); 0 for what has
    no length (the native call then rejects the offsets themselves)."""
    try:
        return max(len(offsets) - 1, 0)
    except TypeError:
        return 0


def split_at(blob: bytes, offsets: Any) -> List[bytes]:
    """blob cut at offsets (count + 1 entries): the items of a batch's
    output, laid out as its input was."""
    bounds = list(offsets)
    return [blob[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]


def split(blob: bytes, size: int) -> List[bytes]:
    return [blob[i:i + size] for i in range(0, len(blob), size)]


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError("as_numpy=True needs numpy (pip install numpy)") from None
    return numpy


def output(count: int, size: int, as_numpy: bool, out: Any = None) -> Any:
    """Where a native batch call writes count size-byte results (its out=
    argument, filled in place and returned): the caller's out (a writable
    buffer of count * size bytes, e.g. a (count, size) uint8 array reused
    between calls; only with as_numpy=True, whose array form it stands
    for), else for as_numpy a new (count, size) uint8 array, else None (the
    call returns new bytes)."""
    if out is not None:
        if not as_numpy:
            raise ValueError("out= takes the place of as_numpy's array: pass as_numpy=True")
        return out
    return _numpy().empty((count, size), dtype=_numpy().uint8) if as_numpy else None


def rows(result: Any, size: int, as_numpy: bool) -> Any:
    """Fixed-size results of a batch: a list of size-byte items, or with
    as_numpy the (count, size) array output() gave the call, filled."""
    return result if as_numpy else split(result, size)


def status_output(as_numpy: bool, out: Any) -> Any:
    """The caller's statuses array for a native verification call (its
    status_out), or None: the call then returns a new bytearray. out= only
    with as_numpy=True, as output() has it."""
    return output(0, 0, as_numpy, out) if out is not None else None


def statuses(values: Any, as_numpy: bool, out: Any = None) -> Any:
    """Per-item statuses: a list, or with as_numpy an int32 array (out
    itself where the caller gave one, which the call filled). values is
    what the native batch calls return (native ints in a bytearray, which
    the array views without a copy) or a sequence of ints."""
    if out is not None:
        return out
    np = _numpy() if as_numpy else None
    if isinstance(values, bytearray):
        if np is not None:
            return np.frombuffer(values, dtype=np.int32)
        return memoryview(values).cast("i").tolist()
    return np.asarray(values, dtype="int32") if np is not None else list(values)


def status_codes(values: Any) -> Sequence[int]:
    """The statuses a native batch call returned, as a sequence of ints
    (read in place)."""
    return memoryview(values).cast("i") if isinstance(values, bytearray) else values


def ids_in(ids: Any, n: int) -> Tuple[bytes, "array[int]"]:
    """Per-item SM2 IDs, flat (data, offsets) for n items; ValueError for
    another count."""
    if len(ids) != n:
        raise ValueError(f"{len(ids)} IDs for {n} items")
    return flat(ids)


def _is_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def count_of(items: Any, size: int) -> int:
    """The number of items in what fixed() takes (without copying)."""
    if _is_buffer(items):
        return memoryview(items).nbytes // size
    return len(items)


def fixed(items: Any, size: int, what: str,
          convert: Optional[Callable[[Any], Optional[bytes]]] = None) -> Any:
    """size-byte items for a native batch call: one flat bytes-like object
    (or numpy array) of count * size bytes is passed on as it is, read in
    place; a sequence is joined, each item a buffer of exactly size bytes
    or an object that convert(item) turns into bytes (convert returns None
    for what it does not know). A wrong length raises ValueError naming the
    item."""
    if _is_buffer(items):
        nbytes = memoryview(items).nbytes
        if nbytes % size:
            raise ValueError(f"{what} must hold {size}-byte items; its length {nbytes} "
                             "is not a multiple")
        return items
    parts = []
    for i, item in enumerate(items):
        raw = convert(item) if convert is not None else None
        if raw is None:
            raw = bytes(memoryview(item).cast("B"))
        if len(raw) != size:
            raise ValueError(f"{what}[{i}] must be {size} bytes, not {len(raw)}")
        parts.append(raw)
    return b"".join(parts)
