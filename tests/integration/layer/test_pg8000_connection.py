"""db/pipeline.py also reads two attributes of a live pg8000 connection: check them on a real one."""

import pg8000
import pg8000.native

from persona_rails.db.url import connect_kwargs
from tests.unit.layer.test_pg8000_internals import INSTANCE_ATTRIBUTES, _pg8000_requirement


def test_a_live_connection_still_has_the_attributes_the_pipeline_reads(database_url):
    """The instance attributes cannot be checked on the class: open a real connection."""
    connection = pg8000.native.Connection(**connect_kwargs(database_url))
    try:
        missing = sorted(name for name in INSTANCE_ATTRIBUTES if not hasattr(connection, name))
    finally:
        connection.close()
    assert not missing, (
        f"pg8000 {pg8000.__version__} connections no longer have {missing}, which "
        f"shared/persona_rails/db/pipeline.py reads: keep the pin {_pg8000_requirement()!r}"
    )
