"""``Routed.with_value`` must carry every field: it is a hand-written dataclasses.replace."""

import dataclasses

from consumer.processor.route import Routed


def test_with_value_keeps_every_other_field():
    fields = {f.name: object() for f in dataclasses.fields(Routed)}
    routed = Routed(**fields)
    expected = dataclasses.replace(routed, value=b"serialized")
    assert routed.with_value(b"serialized") == expected
