"""What is kept on disk: match records (:mod:`.record`, SPEC section 3), where they go
(:mod:`.paths`), the journal beside a record in play (:mod:`.lines`, its line codec;
:mod:`.keeper`, the record keeper that writes record and journal; :mod:`.journal`,
reading a journal back) and what ``--resume`` and ``replay`` load (:mod:`.resume`).
No network and no asyncio.
"""
