"""The compiled module and librowwise's C ABI: what runs without a GPU (checks before any launch)."""
import ctypes
from pathlib import Path

import pytest

import rowwise
from rowwise import _native
from rowwise._native import _C

CURRENT_DEVICE = -1  # the binding's "use the current device": no device switch, so no driver needed
F32 = _native.DTYPE_CODES["float32"]
ERROR_DTYPE, INVALID_VALUE = -1, 1  # ROWWISE_ERROR_DTYPE, cudaErrorInvalidValue
DEFAULTS = (0, False)  # max_ctas, programmatic_launch


def test_import_and_version():
    assert rowwise.__version__ == "0.1.0"
    for name in rowwise.__all__:
        assert hasattr(rowwise, name)


def test_dtype_codes_follow_the_c_enum():
    assert _native.DTYPE_CODES == {"float32": 0, "float64": 1, "float16": 2, "bfloat16": 3, "int8": 4,
                                   "float8_e4m3fn": 5}


def test_error_strings():
    assert _C.error_string(0) == "no error"
    assert "dtype" in _C.error_string(ERROR_DTYPE)
    assert "row stride" in _C.error_string(INVALID_VALUE) and "max_ctas" in _C.error_string(INVALID_VALUE)
    assert _C.error_string(100)  # a CUDA error, in CUDA's words


def test_unknown_dtype_code():
    assert _C.softmax(99, 0, 0, 1, 1, 1, 1, 0, *DEFAULTS, CURRENT_DEVICE) == ERROR_DTYPE
    assert _C.softmax_backward(-5, 0, 0, 0, 1, 1, 1, 1, 1, 0, *DEFAULTS, CURRENT_DEVICE) == ERROR_DTYPE
    assert _C.absmax_scale(F32, 6, 0, 0, 0, 1, 1, 1, 1, 0, *DEFAULTS, CURRENT_DEVICE) == ERROR_DTYPE
    assert _C.absmax_scale(-1, F32, 0, 0, 0, 1, 1, 1, 1, 0, *DEFAULTS, CURRENT_DEVICE) == ERROR_DTYPE
    int8 = _native.DTYPE_CODES["int8"]  # an output-only type
    assert _C.log_softmax_backward(int8, 0, 0, 0, 1, 1, 1, 1, 1, 0, *DEFAULTS, CURRENT_DEVICE) == ERROR_DTYPE


def test_absmax_output_combinations():
    bf16 = _native.DTYPE_CODES["bfloat16"]
    assert _C.absmax_scale(F32, bf16, 0, 0, 0, 1, 1, 1, 1, 0, *DEFAULTS, CURRENT_DEVICE) == ERROR_DTYPE
    for out in ("float32", "int8", "float8_e4m3fn"):  # valid: zero rows do nothing
        assert _C.absmax_scale(F32, _native.DTYPE_CODES[out], 0, 0, 0, 0, 4, 4, 4, 0, *DEFAULTS, CURRENT_DEVICE) == 0


def test_zero_rows_do_nothing():
    assert _C.softmax(F32, 0, 0, 0, 4, 4, 4, 0, *DEFAULTS, CURRENT_DEVICE) == 0
    assert _C.softmax_backward(F32, 0, 0, 0, 0, 4, 4, 4, 4, 0, *DEFAULTS, CURRENT_DEVICE) == 0


# Each op with zero rows (no launch, so no device needed) and the given (max_ctas, programmatic_launch).
ZERO_ROW_CALLS = {
    "softmax": lambda *options: _C.softmax(F32, 0, 0, 0, 4, 4, 4, 0, *options, CURRENT_DEVICE),
    "log_softmax": lambda *options: _C.log_softmax(F32, 0, 0, 0, 4, 4, 4, 0, *options, CURRENT_DEVICE),
    "softmax_backward": lambda *options: _C.softmax_backward(F32, 0, 0, 0, 0, 4, 4, 4, 4, 0, *options,
                                                             CURRENT_DEVICE),
    "log_softmax_backward": lambda *options: _C.log_softmax_backward(F32, 0, 0, 0, 0, 4, 4, 4, 4, 0, *options,
                                                                     CURRENT_DEVICE),
    "absmax_scale": lambda *options: _C.absmax_scale(F32, F32, 0, 0, 0, 0, 4, 4, 4, 0, *options, CURRENT_DEVICE),
}


@pytest.mark.parametrize("op", list(ZERO_ROW_CALLS))
def test_launch_options_are_checked_before_any_launch(op):
    call = ZERO_ROW_CALLS[op]
    assert call(-1, False) == INVALID_VALUE  # a negative CTA bound, even with no row to launch
    assert call(-(2**63), True) == INVALID_VALUE
    for max_ctas, programmatic_launch in ((0, True), (1, False), (2**63 - 1, True)):
        assert call(max_ctas, programmatic_launch) == 0


class RowwiseOptions(ctypes.Structure):
    """rowwise_c.h's rowwise_options."""
    _fields_ = [("max_ctas", ctypes.c_int64), ("programmatic_launch", ctypes.c_int32)]


def test_c_abi_takes_options_by_pointer_null_for_the_defaults():
    """librowwise itself (beside _C), as a C host calls it: rowwise_softmax's last parameter."""
    librowwise = ctypes.CDLL(str(Path(_C.__file__).with_name("librowwise.so")))
    softmax = librowwise.rowwise_softmax
    softmax.restype = ctypes.c_int
    softmax.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * 4 + [
        ctypes.c_void_p, ctypes.POINTER(RowwiseOptions)]
    assert softmax(F32, None, None, 0, 4, 4, 4, None, None) == 0
    assert softmax(F32, None, None, 0, 4, 4, 4, None, RowwiseOptions(-1, 0)) == INVALID_VALUE
    assert softmax(F32, None, None, 0, 4, 4, 4, None, RowwiseOptions(8, 1)) == 0
    assert softmax(F32, None, None, 2, 4, 4, 4, None, None) == INVALID_VALUE  # null x and y: refused as before


@pytest.mark.parametrize("rows, cols, x, y, stride", [
    (2, 4, 0, 0, 4),           # null pointers
    (-1, 4, 256, 512, 4),      # negative rows
    (2, 0, 256, 512, 4),       # no columns
    (2, 4, 256, 512, 3),       # row stride < cols
    (2, 4, 257, 512, 4),       # misaligned float pointer
])
def test_bad_arguments_are_rejected_before_any_launch(rows, cols, x, y, stride):
    assert _C.softmax(F32, x, y, rows, cols, stride, stride, 0, *DEFAULTS, CURRENT_DEVICE) == INVALID_VALUE


def test_error_codes_are_the_c_abis():
    assert (_C.ERROR_DTYPE, _C.INVALID_VALUE) == (ERROR_DTYPE, INVALID_VALUE)


def test_check_names_the_op_and_raises_by_kind():
    _native.check("softmax", 0)
    with pytest.raises(ValueError, match=r"rowwise.softmax: invalid argument"):
        _native.check("softmax", INVALID_VALUE)
    with pytest.raises(TypeError, match=r"rowwise.absmax_scale: unsupported dtype"):
        _native.check("absmax_scale", ERROR_DTYPE)
    with pytest.raises(RuntimeError, match=r"rowwise.softmax: .*\(code 2\)"):
        _native.check("softmax", 2)  # cudaErrorMemoryAllocation: a failure, not an argument
