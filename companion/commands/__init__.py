"""Command-line verbs, one module per area; each keeps heavy imports inside its handlers."""
