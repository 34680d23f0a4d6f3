"""python -m rowwise.bench refuses counts that would measure nothing, before it imports torch."""
import pytest

from rowwise.bench.__main__ import parse_args


def test_defaults_parse():
    args = parse_args([])
    assert args.rounds >= 1 and args.iters >= 1 and args.bytes >= 1


@pytest.mark.parametrize("argv", [["--rounds", "0"], ["--iters", "0"], ["--bytes", "-1"], ["--cols", "16,0"],
                                  ["--ops", "softmax,nope"]])
def test_bad_arguments_are_refused(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert argv[0] in err or "unknown op" in err
