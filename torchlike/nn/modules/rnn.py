"""nn layers: rnn."""

__all__: list = []
