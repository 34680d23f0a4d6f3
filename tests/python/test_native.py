"""The compiled module and librowwise's C ABI: what runs without a GPU (checks before any launch)."""
import pytest

import rowwise
from rowwise import _native
from rowwise._native import _C

CURRENT_DEVICE = -1  # the binding's "use the current device": no device switch, so no driver needed
F32 = _native.DTYPE_CODES["float32"]
ERROR_DTYPE, INVALID_VALUE = -1, 1  # ROWWISE_ERROR_DTYPE, cudaErrorInvalidValue


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
    assert "row stride" in _C.error_string(INVALID_VALUE)
    assert _C.error_string(100)  # a CUDA error, in CUDA's words


def test_unknown_dtype_code():
    assert _C.softmax(99, 0, 0, 1, 1, 1, 1, 0, CURRENT_DEVICE) == ERROR_DTYPE
    assert _C.softmax_backward(-5, 0, 0, 0, 1, 1, 1, 1, 1, 0, CURRENT_DEVICE) == ERROR_DTYPE
    assert _C.absmax_scale(F32, 6, 0, 0, 0, 1, 1, 1, 1, 0, CURRENT_DEVICE) == ERROR_DTYPE
    assert _C.absmax_scale(-1, F32, 0, 0, 0, 1, 1, 1, 1, 0, CURRENT_DEVICE) == ERROR_DTYPE
    int8 = _native.DTYPE_CODES["int8"]  # an output-only type
    assert _C.log_softmax_backward(int8, 0, 0, 0, 1, 1, 1, 1, 1, 0, CURRENT_DEVICE) == ERROR_DTYPE


def test_absmax_output_combinations():
    bf16 = _native.DTYPE_CODES["bfloat16"]
    assert _C.absmax_scale(F32, bf16, 0, 0, 0, 1, 1, 1, 1, 0, CURRENT_DEVICE) == ERROR_DTYPE
    for out in ("float32", "int8", "float8_e4m3fn"):  # valid: zero rows do nothing
        assert _C.absmax_scale(F32, _native.DTYPE_CODES[out], 0, 0, 0, 0, 4, 4, 4, 0, CURRENT_DEVICE) == 0


def test_zero_rows_do_nothing():
    assert _C.softmax(F32, 0, 0, 0, 4, 4, 4, 0, CURRENT_DEVICE) == 0
    assert _C.softmax_backward(F32, 0, 0, 0, 0, 4, 4, 4, 4, 0, CURRENT_DEVICE) == 0


@pytest.mark.parametrize("rows, cols, x, y, stride", [
    (2, 4, 0, 0, 4),           # null pointers
    (-1, 4, 256, 512, 4),      # negative rows
    (2, 0, 256, 512, 4),       # no columns
    (2, 4, 256, 512, 3),       # row stride < cols
    (2, 4, 257, 512, 4),       # misaligned float pointer
])
def test_bad_arguments_are_rejected_before_any_launch(rows, cols, x, y, stride):
    assert _C.softmax(F32, x, y, rows, cols, stride, stride, 0, CURRENT_DEVICE) == INVALID_VALUE


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
