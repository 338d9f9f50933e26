"""What the tests and the benchmarks share and the product does not use: spoken test clips
(``spoken``), a grammar ear that checks a voice still says its words (``check``), and
measurements of voices (``analysis``)."""
