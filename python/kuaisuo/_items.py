"""Batch inputs shared by the algorithm modules: variable-length messages
laid out flat (data + offsets, as the C API takes them) and fixed-size items
(keys, signatures) given as a list or as one flat buffer."""

from __future__ import annotations

from array import array
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

Buffer = Union[bytes, bytearray, memoryview]


def flat(messages: Sequence[Buffer]) -> Tuple[bytes, "array[int]"]:
    """(data, offsets) for a sequence of buffers: item i is
    data[offsets[i]:offsets[i + 1]]."""
    offsets = array("Q", [0])
    parts = []
    for m in messages:
        mv = memoryview(m).cast("B") if not isinstance(m, (bytes, bytearray)) else m
        parts.append(bytes(mv))
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


def split(blob: bytes, size: int) -> List[bytes]:
    return [blob[i:i + size] for i in range(0, len(blob), size)]


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
