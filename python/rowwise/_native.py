"""The compiled module rowwise._C, its dtype codes, its error codes turned into exceptions, and the launch
options' checks."""
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


def check_options(op: str, max_ctas, programmatic_launch) -> None:
    """Checks the launch options every rowwise function takes (the C ABI's rowwise_options): max_ctas an
    int >= 0 (at most that many CTAs, 0: as many as the work takes), programmatic_launch a bool."""
    if isinstance(max_ctas, bool) or not isinstance(max_ctas, int):
        raise TypeError(f"rowwise.{op}: max_ctas must be an int, got {type(max_ctas).__name__}")
    if not 0 <= max_ctas < 2**63:
        raise ValueError(f"rowwise.{op}: max_ctas must be 0 (as many CTAs as the work takes) or a CTA count "
                         f"below 2**63; got {max_ctas}")
    if not isinstance(programmatic_launch, bool):
        raise TypeError(f"rowwise.{op}: programmatic_launch must be a bool, got {type(programmatic_launch).__name__}")


def no_device_reason() -> str:
    """Why no CUDA device is usable, in words ("" when one is)."""
    code, count = _C.device_count()
    if code != 0:
        return f"no usable CUDA device: {_C.error_string(code)}"
    return "" if count > 0 else "no CUDA device"
