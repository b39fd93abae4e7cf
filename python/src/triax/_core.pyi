"""triax's extension module (nanobind). Use the triax package's functions instead."""
from typing import Any

class NegativeStrideError(ValueError):
    """Inputs with negative strides; args[0] is a bit mask of them (bit k: operand k)."""

def solve(a: Any, b: Any, c: Any, d: Any, out: Any, axis: int, increment: bool, checked: bool,
          info: Any | None, stream: int, block: bool = False) -> None: ...
def cache_size() -> int: ...
def clear_cache() -> None: ...
def cuda_compiled() -> bool: ...

class Plan:
    def __init__(self, a: Any, b: Any, c: Any, d: Any, out: Any, axis: int, checked: bool,
                 stream: int, block: bool = False) -> None: ...
    def run(self, a: Any, b: Any, c: Any, d: Any, out: Any, increment: bool, info: Any | None,
            stream: int) -> None: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def system_length(self) -> int: ...
    @property
    def system_count(self) -> int: ...
    @property
    def workspace_bytes(self) -> int: ...
    @property
    def axis(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    @property
    def checked(self) -> bool: ...

class FactoredPlan:
    def __init__(self, a: Any, b: Any, c: Any, d: Any, out: Any, axis: int, checked: bool,
                 stream: int) -> None: ...
    def run(self, d: Any, out: Any, increment: bool, info: Any | None, stream: int) -> None: ...
    backend: str
    system_length: int
    system_count: int
    stored_rows: int
    compressed: bool
    factor_info: int
    workspace_bytes: int
    axis: int

class VarPlan:
    def __init__(self, lengths: Any, offsets: Any | None, a: Any, b: Any, c: Any, d: Any,
                 out: Any, axis: int, back_to_back: bool, checked: bool, stream: int) -> None: ...
    def run(self, a: Any, b: Any, c: Any, d: Any, out: Any, increment: bool, info: Any | None,
            stream: int) -> None: ...
    backend: str
    system_count: int
    total_rows: int
    max_length: int
    span: int
    back_to_back: bool
    workspace_bytes: int
    axis: int
