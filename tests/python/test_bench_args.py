"""python -m rowwise.bench refuses counts that would measure nothing, before it imports torch."""
import pytest

from rowwise.bench.__main__ import parse_args


def test_defaults_parse():
    args = parse_args([])
    assert args.rounds >= 1 and args.iters >= 1 and args.bytes >= 1


# The usage line argparse prints names every flag, so each case looks for its own message.
@pytest.mark.parametrize("argv, message", [
    (["--rounds", "0"], "--rounds must be at least 1 (got 0)"),
    (["--iters", "0"], "--iters must be at least 1 (got 0)"),
    (["--bytes", "-1"], "--bytes must be at least 1 (got -1)"),
    (["--cols", "16,0"], "--cols must be at least 1 (got 16,0)"),
    (["--ops", "softmax,nope"], "unknown op nope"),
])
def test_bad_arguments_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
