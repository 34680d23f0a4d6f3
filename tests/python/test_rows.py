"""Row geometry: which layouts the kernels take in place, and which need a copy."""
import pytest

from rowwise._rows import row_layout


@pytest.mark.parametrize("shape, strides, expected", [
    ((7,), (1,), (1, 7, 7)),                    # one row
    ((3, 5), (5, 1), (3, 5, 5)),                # contiguous
    ((2, 3, 5), (15, 5, 1), (6, 5, 5)),         # leading dims flatten
    ((3, 5), (8, 1), (3, 5, 8)),                # a slice of the last dim: strided rows
    ((2, 3, 5), (24, 8, 1), (6, 5, 8)),         # the same, one more dim
    ((3, 1, 5), (5, 99, 1), (3, 5, 5)),         # size-1 dims have any stride
    ((3, 1), (1, 7), (3, 1, 1)),                # one column: its stride does not matter
    ((1, 5), (0, 1), (1, 5, 5)),                # one row: its stride does not matter
    ((0, 5), (5, 1), (0, 5, 5)),                # no rows
])
def test_in_place_layouts(shape, strides, expected):
    assert row_layout(shape, strides) == expected


@pytest.mark.parametrize("shape, strides", [
    ((3, 5), (1, 3)),        # transposed: the last dim is not contiguous
    ((3, 5), (0, 1)),        # broadcast rows
    ((3, 5), (4, 1)),        # overlapping rows
    ((3, 5), (-5, 1)),       # reversed rows
    ((2, 3, 5), (40, 8, 1)), # leading dims do not flatten to one stride
])
def test_layouts_that_need_a_copy(shape, strides):
    assert row_layout(shape, strides) is None
