"""Arrays already in GPU memory: CuPy arrays, PyTorch CUDA tensors and any
object with ``__dlpack__`` / ``__dlpack_device__`` (DLPack) or
``__cuda_array_interface__`` (version 2 or 3), for the Context methods
that take them (README "Data on the GPU"; kuaisuo/common.h, "Device
memory", for the C rule underneath).

DLPack is asked first, with the stream the call runs on, so that the
array's library orders its pending work before ours (DLPack's stream
contract); ``__cuda_array_interface__`` serves objects without DLPack, and
then the caller orders the work. The stream is ``stream=`` when given (an
int ``cudaStream_t``, a ``torch.cuda.Stream`` or a ``cupy.cuda.Stream``),
else the current stream of the array's library (PyTorch, CuPy), else the
legacy default stream. Results are new arrays of the same library on the
same device, or ``out=``; nothing here imports CuPy or PyTorch unless an
array of theirs is passed.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence, Tuple

from . import _native

_CUDA, _CUDA_HOST, _CUDA_MANAGED = 2, 3, 13  # DLPack device types
_LEGACY_DEFAULT = 1  # DLPack's number for the legacy default stream


class DeviceArray(NamedTuple):
    """A C-contiguous array in device memory: its address, size, device
    ordinal, element type ('u1', 'i8', 'f4', ...) and the object itself."""
    ptr: int
    nbytes: int
    device: int
    dtype: str
    shape: Tuple[int, ...]
    obj: Any


def _library(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def is_device(obj: Any) -> bool:
    """Whether obj is an array in CUDA device or managed memory."""
    if obj is None or isinstance(obj, (bytes, bytearray, memoryview)):
        return False
    probe = getattr(obj, "__dlpack_device__", None)
    if probe is not None:
        try:
            kind, _ = probe()
        except Exception:  # noqa: BLE001 - an object that cannot say is not ours
            return False
        return int(kind) in (_CUDA, _CUDA_MANAGED)
    try:
        return getattr(obj, "__cuda_array_interface__", None) is not None
    except Exception:  # noqa: BLE001 - e.g. a CPU tensor refusing the attribute
        return False


def any_device(*objs: Any) -> bool:
    return any(is_device(o) for o in objs)


def stream_of(obj: Any, stream: Any) -> int:
    """The cudaStream_t a call on obj runs on (0: the legacy default)."""
    if stream is None:
        library = _library(obj)
        if library == "torch":
            import torch
            return int(torch.cuda.current_stream(obj.device).cuda_stream)
        if library == "cupy":
            import cupy
            return int(cupy.cuda.get_current_stream().ptr)
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError("stream must be an int cudaStream_t, a torch.cuda.Stream or a "
                    f"cupy.cuda.Stream, not {type(stream).__name__}")


_DLPACK_TYPES = {0: "i", 1: "u", 2: "f", 4: "b", 5: "c"}  # kDLInt, kDLUInt, kDLFloat, kDLBfloat..


def _contiguous(shape: Sequence[int], strides: Optional[Sequence[int]], item: int) -> bool:
    """C order, strides in elements (DLPack) or None."""
    if strides is None or 0 in shape:
        return True
    want = 1
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != want:
            return False
        want *= extent
    return True


def _size(shape: Sequence[int]) -> int:
    n = 1
    for extent in shape:
        n *= int(extent)
    return n


def view(obj: Any, what: str, stream: int) -> DeviceArray:
    """obj as a DeviceArray; TypeError for host memory, ValueError for an
    array that is not C-contiguous."""
    if not is_device(obj):
        raise TypeError(f"{what} must be an array in GPU memory (CuPy, PyTorch CUDA, DLPack) "
                        f"like the call's other arrays, not {type(obj).__name__}")
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        capsule = obj.__dlpack__(stream=stream if stream != 0 else _LEGACY_DEFAULT)
        ptr, kind, device, shape, strides, (code, bits, lanes) = _native.dlpack_info(capsule)
        item = bits * lanes // 8
        dtype = f"{_DLPACK_TYPES.get(code, '?')}{item}"
        if not _contiguous(shape, strides, item):
            raise ValueError(f"{what} must be C-contiguous (call .contiguous() / "
                             "cupy.ascontiguousarray first)")
        return DeviceArray(ptr, _size(shape) * item, device, dtype, tuple(shape), obj)
    cai = obj.__cuda_array_interface__
    shape = tuple(int(x) for x in cai["shape"])
    typestr = cai["typestr"]
    item = int(typestr[2:])
    strides = cai.get("strides")
    if strides is not None and not _contiguous(shape, [s // item for s in strides], item):
        raise ValueError(f"{what} must be C-contiguous")
    if strides is not None and any(s % item for s in strides):
        raise ValueError(f"{what} must be C-contiguous")
    ptr, _ = cai["data"]
    # Version 3's "stream": the producer's work on the array is queued
    # there, and the call's stream waits for it (an event, no host wait;
    # 1 and 2 are the legacy and per-thread default streams, as in CUDA).
    producer = cai.get("stream")
    if producer is not None and int(producer) != stream:
        _native.stream_wait(stream if stream != 0 else _LEGACY_DEFAULT, int(producer))
    # The interface names no device: the library checks the pointer
    # against the context's (KS_ERR_MEMORY_MIX).
    return DeviceArray(int(ptr or 0), _size(shape) * item, -1, typestr[1:], shape, obj)


def require(a: DeviceArray, what: str, dtypes: Sequence[str],
            shape: Optional[Tuple[int, ...]] = None) -> None:
    if a.dtype not in dtypes:
        raise TypeError(f"{what} must have dtype {' or '.join(dtypes)}, not {a.dtype}")
    if shape is not None and a.shape != shape:
        raise ValueError(f"{what} must have shape {shape}, not {a.shape}")


def empty(like: Any, shape: Tuple[int, ...], dtype: str) -> Any:
    """A new array of like's library on like's device (uninitialised)."""
    library = _library(like)
    if library == "torch":
        import torch
        types = {"u1": torch.uint8, "i4": torch.int32, "i8": torch.int64}
        return torch.empty(shape, dtype=types[dtype], device=like.device)
    if library == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype)
    raise TypeError(f"give out= for arrays of {library} (kuaisuo allocates CuPy and PyTorch "
                    "arrays only)")


def empty_like(like: Any) -> Any:
    """A new array with like's library, device, shape and dtype."""
    library = _library(like)
    if library == "torch":
        import torch
        return torch.empty_like(like, memory_format=torch.contiguous_format)
    if library == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty_like(like, order="C")
    raise TypeError(f"give out= for arrays of {library} (kuaisuo allocates CuPy and PyTorch "
                    "arrays only)")


def output(out: Any, like: DeviceArray, stream: int, what: str = "out") -> DeviceArray:
    """out (a device array of like's size), or a new one like it."""
    if out is None:
        out = empty_like(like.obj)
    a = view(out, what, stream)
    if a.nbytes != like.nbytes:
        raise ValueError(f"{what} must hold {like.nbytes} bytes, not {a.nbytes}")
    return a


_ERR_BACKEND_UNAVAILABLE = -7  # KS_ERR_BACKEND_UNAVAILABLE


def require_gpu_context(ctx: Any) -> None:
    if ctx.backend != "gpu":
        raise _native.BackendUnavailableError(
            _ERR_BACKEND_UNAVAILABLE, "arrays in GPU memory need a context with a GPU "
            "(Context('gpu'), or 'auto' where one is present)")


def host_only(*device_args: Any) -> None:
    """out=, tag_out= and stream= belong to data in GPU memory."""
    if any(a is not None for a in device_args):
        raise TypeError("out=, tag_out= and stream= are for data in GPU memory; host data "
                        "gives bytes")


def crypt(ctx: Any, run: Any, data: Any, out: Any, stream: Any) -> Any:
    """A buffer cipher on a device array: run(src, dst, nbytes, stream)
    queues it; returns the output array (out, or a new one)."""
    require_gpu_context(ctx)
    s = stream_of(data, stream)
    src = view(data, "data", s)
    dst = output(out, src, s)
    run(src.ptr, dst.ptr, src.nbytes, s)
    return dst.obj


def flat_messages(ctx: Any, messages: Any, offsets: Any, s: int,
                  names: Tuple[str, str] = ("messages", "offsets")) -> Tuple[DeviceArray,
                                                                           DeviceArray, int]:
    """A device batch's flat uint8 messages and uint64/int64 offsets, and
    its count; names: the two arguments' names in errors."""
    require_gpu_context(ctx)
    what, offsets_what = names
    if offsets is None:
        raise ValueError(f"{what} in GPU memory need {offsets_what}= (count + 1 uint64 or int64 "
                         "in GPU memory)")
    data = view(messages, what, s)
    require(data, what, ("u1",))
    offs = view(offsets, offsets_what, s)
    require(offs, offsets_what, ("u8", "i8"))
    if len(offs.shape) != 1 or offs.shape[0] < 1:
        raise ValueError(f"{offsets_what} must be one-dimensional, count + 1 entries")
    return data, offs, offs.shape[0] - 1


def sm3_batch(ctx: Any, messages: Any, offsets: Any, out: Any, stream: Any) -> Tuple[Any, Any]:
    """ctx.sm3.hash on device arrays: (digests, statuses)."""
    s = stream_of(messages, stream)
    data, offs, n = flat_messages(ctx, messages, offsets, s)
    digests_obj = out if out is not None else empty(messages, (n, 32), "u1")
    digests = view(digests_obj, "out", s)
    require(digests, "out", ("u1",))
    if digests.nbytes != 32 * n:
        raise ValueError(f"out must hold 32 bytes for each of the {n} items")
    status_obj = empty(messages, (n,), "i4")
    status = view(status_obj, "statuses", s)
    ctx.sm3_batch_device(data.ptr, data.nbytes, offs.ptr, n, digests.ptr, status.ptr, s)
    return digests_obj, status_obj


class Sm4Batch(NamedTuple):
    """ctx.sm4's batch calls on device arrays: the mode (a _native code),
    direction, and the IV and tag lengths (0: none)."""
    mode: int
    encrypt: bool
    iv_len: int
    tag_len: int = 0


def sm4_batch(ctx: Any, b: Sm4Batch, keys: Any, ivs: Any, messages: Any, offsets: Any,
              aad: Any, aad_offsets: Any, tags: Any, out: Any,
              stream: Any) -> Tuple[Any, Any, Any]:
    """ks_sm4_batch on device arrays: (out, tags, statuses), tags those
    given (opening), new (sealing) or None (not GCM)."""
    s = stream_of(messages, stream)
    data, offs, n = flat_messages(ctx, messages, offsets, s)
    k = fixed_items(keys, "keys", 16, n, s)
    v = fixed_items(ivs, "ivs", b.iv_len, n, s) if b.iv_len else None
    dst = output(out, data, s)
    tag_obj, t = None, None
    if b.tag_len:
        tag_obj = tags if tags is not None else empty(messages, (n, b.tag_len), "u1")
        t = fixed_items(tag_obj, "tags", b.tag_len, n, s)
    a = view(aad, "associated_data", s) if aad is not None else None
    a_offs = None
    if aad_offsets is not None:
        a_offs = view(aad_offsets, "aad_offsets", s)
        require(a_offs, "aad_offsets", ("u8", "i8"), (n + 1,))
    status_obj, status = status_output(messages, None, n, s)
    ctx.sm4_batch_device(b.mode, b.encrypt, k.ptr, v.ptr if v else 0, b.iv_len, data.ptr,
                         data.nbytes, offs.ptr, n, dst.ptr, dst.nbytes, a.ptr if a else 0,
                         a.nbytes if a else 0, a_offs.ptr if a_offs else 0, t.ptr if t else 0,
                         b.tag_len, status.ptr, s)
    return dst.obj, tag_obj, status_obj


def skinny_batch(ctx: Any, mode: int, encrypt: bool, tweakeys: Any, ivs: Any, messages: Any,
                 offsets: Any, out: Any, stream: Any) -> Tuple[Any, Any]:
    """ks_skinny128_256_batch on device arrays: (out, statuses)."""
    s = stream_of(messages, stream)
    data, offs, n = flat_messages(ctx, messages, offsets, s)
    k = fixed_items(tweakeys, "tweakeys", 32, n, s)
    v = fixed_items(ivs, "ivs", 16, n, s) if ivs is not None else None
    dst = output(out, data, s)
    status_obj, status = status_output(messages, None, n, s)
    ctx.skinny_batch_device(mode, encrypt, k.ptr, v.ptr if v else 0, data.ptr, data.nbytes,
                            offs.ptr, n, dst.ptr, dst.nbytes, status.ptr, s)
    return dst.obj, status_obj


def sm2_digests(ctx: Any, public_keys: Any, ids: Any, id_offsets: Any, messages: Any,
                offsets: Any, out: Any, stream: Any) -> Tuple[Any, Any]:
    """ks_sm2_digest_batch on device arrays, each item with its own key
    and ID: (digests (n, 32) uint8, statuses)."""
    s = stream_of(messages, stream)
    data, offs, n = flat_messages(ctx, messages, offsets, s)
    keys = fixed_items(public_keys, "public_keys", 65, n, s)
    id_bytes, id_offs, n_ids = flat_messages(ctx, ids, id_offsets, s, ("ids", "id_offsets"))
    if n_ids != n:
        raise ValueError(f"id_offsets must have shape ({n + 1},), not {id_offs.shape}")
    digests = new_items(messages, out, "out", 32, n, s)
    status_obj, status = status_output(messages, None, n, s)
    ctx.sm2_digests_device(keys.ptr, id_bytes.ptr, id_bytes.nbytes, id_offs.ptr, data.ptr,
                           data.nbytes, offs.ptr, n, digests.ptr, status.ptr, s)
    return digests.obj, status_obj


def new_items(like: Any, out: Any, what: str, size: int, n: int, s: int) -> DeviceArray:
    """The (n, size) uint8 output of a device batch: out, or a new array of
    like's library."""
    obj = out if out is not None else empty(like, (n, size), "u1")
    return fixed_items(obj, what, size, n, s)


def curve25519_keys(ctx: Any, ed25519: bool, count: Optional[int], secrets: Any,
                    public_out: Any, stream: Any) -> Tuple[Any, Any, Any]:
    """Ed25519 or X25519 key pairs drawn into `secrets` (count given), or
    the public keys of `secrets`, (count, 32) uint8 arrays in device
    memory: (secrets, public keys (public_out or a new array), statuses;
    every status 0, as nothing fails per item)."""
    require_gpu_context(ctx)
    s = stream_of(secrets, stream)
    sec = view(secrets, "secrets", s)
    n = count if count is not None else sec.nbytes // 32
    items_of(sec, "secrets", 32, n)
    pubs = new_items(secrets, public_out, "public keys", 32, n, s)
    status_obj, status = status_output(secrets, None, n, s)
    ctx.curve25519_keys_device(ed25519, count is not None, sec.ptr, n, pubs.ptr, status.ptr, s)
    return secrets, pubs.obj, status_obj


def fixed_items(obj: Any, what: str, size: int, n: int, s: int) -> DeviceArray:
    """A device array of n items of `size` bytes (uint8)."""
    return items_of(view(obj, what, s), what, size, n)


def items_of(a: DeviceArray, what: str, size: int, n: int) -> DeviceArray:
    """a, checked to be n items of `size` bytes (uint8): for an array
    already viewed (each view exports it once more)."""
    require(a, what, ("u1",))
    if a.nbytes != size * n:
        raise ValueError(f"{what} must hold {size} bytes for each of the {n} items, "
                         f"not {a.nbytes} bytes")
    return a


def status_output(like: Any, out: Any, n: int, s: int) -> Tuple[Any, DeviceArray]:
    """The int32 status array of a device batch: out, or a new one of
    like's library; and its view."""
    obj = out if out is not None else empty(like, (n,), "i4")
    status = view(obj, "out", s)
    require(status, "out", ("i4",), (n,))
    return obj, status
