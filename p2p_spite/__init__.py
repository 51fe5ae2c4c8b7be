"""p2p-spite: Spite & Malice for two, peer to peer in the terminal."""

__version__ = "0.1.0"
