"""The compiled module rowwise._C, its dtype codes, and its error codes turned into exceptions."""
try:
    from . import _C
except ImportError as e:  # a source checkout without a build, or librowwise missing beside _C
    raise ImportError(f"rowwise: the compiled module rowwise._C cannot be loaded ({e}); install the package "
                      "with `pip install .` from the repository root") from e

# Element types every op takes, and what absmax_scale may also write.
ELEMENTS = ("float32", "float64", "float16", "bfloat16")
QUANTIZED = ("int8", "float8_e4m3fn")
DTYPE_CODES = dict(_C.DTYPES)


def check(op: str, code: int) -> None:
    """Raises for a nonzero C ABI result of rowwise.<op>: TypeError for an unsupported dtype, ValueError for
    an argument the C ABI refuses (cudaErrorInvalidValue), RuntimeError for anything else (a failed launch)."""
    if code == 0:
        return
    message = f"rowwise.{op}: {_C.error_string(code)} (code {code})"
    if code == _C.ERROR_DTYPE:
        raise TypeError(message)
    if code == _C.INVALID_VALUE:
        raise ValueError(message)
    raise RuntimeError(message)


def no_device_reason() -> str:
    """Why no CUDA device is usable, in words ("" when one is)."""
    code, count = _C.device_count()
    if code != 0:
        return f"no usable CUDA device: {_C.error_string(code)}"
    return "" if count > 0 else "no CUDA device"
