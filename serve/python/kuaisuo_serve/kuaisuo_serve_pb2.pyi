from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SignRequest(_message.Message):
    __slots__ = ("key_id", "items", "digests", "timeout_ms", "digest_rows")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DIGESTS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    DIGEST_ROWS_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    items: _containers.RepeatedScalarFieldContainer[bytes]
    digests: bool
    timeout_ms: int
    digest_rows: bytes
    def __init__(self, key_id: _Optional[str] = ..., items: _Optional[_Iterable[bytes]] = ..., digests: _Optional[bool] = ..., timeout_ms: _Optional[int] = ..., digest_rows: _Optional[bytes] = ...) -> None: ...

class VerifyItem(_message.Message):
    __slots__ = ("public_key", "data", "signature")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    public_key: bytes
    data: bytes
    signature: bytes
    def __init__(self, public_key: _Optional[bytes] = ..., data: _Optional[bytes] = ..., signature: _Optional[bytes] = ...) -> None: ...

class VerifyRequest(_message.Message):
    __slots__ = ("algorithm", "items", "digests", "timeout_ms", "public_key_rows", "digest_rows", "signature_rows")
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DIGESTS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_ROWS_FIELD_NUMBER: _ClassVar[int]
    DIGEST_ROWS_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_ROWS_FIELD_NUMBER: _ClassVar[int]
    algorithm: str
    items: _containers.RepeatedCompositeFieldContainer[VerifyItem]
    digests: bool
    timeout_ms: int
    public_key_rows: bytes
    digest_rows: bytes
    signature_rows: bytes
    def __init__(self, algorithm: _Optional[str] = ..., items: _Optional[_Iterable[_Union[VerifyItem, _Mapping]]] = ..., digests: _Optional[bool] = ..., timeout_ms: _Optional[int] = ..., public_key_rows: _Optional[bytes] = ..., digest_rows: _Optional[bytes] = ..., signature_rows: _Optional[bytes] = ...) -> None: ...

class HashRequest(_message.Message):
    __slots__ = ("algorithm", "items", "timeout_ms")
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    algorithm: str
    items: _containers.RepeatedScalarFieldContainer[bytes]
    timeout_ms: int
    def __init__(self, algorithm: _Optional[str] = ..., items: _Optional[_Iterable[bytes]] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class CipherRequest(_message.Message):
    __slots__ = ("key_id", "items", "associated_data", "timeout_ms", "rows", "row_bytes")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    ASSOCIATED_DATA_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    ROW_BYTES_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    items: _containers.RepeatedScalarFieldContainer[bytes]
    associated_data: _containers.RepeatedScalarFieldContainer[bytes]
    timeout_ms: int
    rows: bytes
    row_bytes: int
    def __init__(self, key_id: _Optional[str] = ..., items: _Optional[_Iterable[bytes]] = ..., associated_data: _Optional[_Iterable[bytes]] = ..., timeout_ms: _Optional[int] = ..., rows: _Optional[bytes] = ..., row_bytes: _Optional[int] = ...) -> None: ...

class ItemResult(_message.Message):
    __slots__ = ("status", "value", "error")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    status: int
    value: bytes
    error: str
    def __init__(self, status: _Optional[int] = ..., value: _Optional[bytes] = ..., error: _Optional[str] = ...) -> None: ...

class Reply(_message.Message):
    __slots__ = ("results", "statuses", "value_rows")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    VALUE_ROWS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[ItemResult]
    statuses: bytes
    value_rows: bytes
    def __init__(self, results: _Optional[_Iterable[_Union[ItemResult, _Mapping]]] = ..., statuses: _Optional[bytes] = ..., value_rows: _Optional[bytes] = ...) -> None: ...
