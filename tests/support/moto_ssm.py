"""SSM as a moto server on 127.0.0.1: the stand-in for AWS that persona_rails.ssm talks HTTP to.

moto's in-process mock patches botocore, and persona_rails.ssm does not use botocore, so the
tests run moto's own server (the moto[server] extra) and point AWS_ENDPOINT_URL_SSM at it, as the
AWS SDKs would be pointed. A child process (a simulated Lambda) reaches it the same way.
"""

from __future__ import annotations

import logging
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

REGION = "eu-central-1"
# moto takes any key pair; these only have to be present, as Lambda's role credentials are.
AWS_ENVIRONMENT = {
    "AWS_REGION": REGION,
    "AWS_DEFAULT_REGION": REGION,
    "AWS_ACCESS_KEY_ID": "ASIATESTINGMOTOSSM00",
    "AWS_SECRET_ACCESS_KEY": "moto-ssm-secret-access-key",
    "AWS_SESSION_TOKEN": "moto-ssm-session-token",
}


class MotoSsm:
    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        import boto3

        self.client: Any = boto3.client(
            "ssm",
            endpoint_url=endpoint,
            region_name=REGION,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    @property
    def environment(self) -> dict[str, str]:
        """What a function's environment needs to read from this SSM."""
        return {**AWS_ENVIRONMENT, "AWS_ENDPOINT_URL_SSM": self.endpoint}

    def put(self, name: str, value: str) -> None:
        self.client.put_parameter(Name=name, Value=value, Type="SecureString", Overwrite=True)

    def reset(self) -> None:
        request = urllib.request.Request(f"{self.endpoint}/moto-api/reset", method="POST")  # noqa: S310
        urllib.request.urlopen(request, timeout=10).close()  # noqa: S310 - our own 127.0.0.1 server


@contextmanager
def moto_ssm_server() -> Iterator[MotoSsm]:
    from moto.server import ThreadedMotoServer

    # verbose=False still leaves werkzeug's line per request on stderr.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield MotoSsm(f"http://{host}:{port}")
    finally:
        server.stop()
