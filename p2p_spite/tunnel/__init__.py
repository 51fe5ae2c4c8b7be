"""Play over the internet: a short code, a rendezvous, a sealed channel, a relay.

The cryptography is pure Python over the standard library: ChaCha20-Poly1305
(:mod:`.aead`, RFC 8439), HKDF-SHA256 (:mod:`.hkdf`, RFC 5869), SPAKE2 on P-256
(:mod:`.spake2`, RFC 9382) and the sealed channel built on them
(:mod:`.channel`); docs/protocol.md, "The internet channel", describes the bytes.
"""
