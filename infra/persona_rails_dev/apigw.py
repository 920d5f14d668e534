"""API Gateway HTTP API (payload format 2.0) events, built from an HTTP request."""

from __future__ import annotations

import base64
import time
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

from persona_rails_dev.template import Route


def http_event(
    route: Route,
    path: str,
    path_parameters: dict[str, str],
    *,
    method: str,
    headers: dict[str, str],
    body: bytes | str | None = None,
    query: str = "",
    source_ip: str = "127.0.0.1",
) -> dict[str, Any]:
    now = datetime.now(UTC)
    raw = body.encode() if isinstance(body, str) else body
    is_text = True
    if raw:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            is_text = False
    lowered = {name.lower(): value for name, value in headers.items()}
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route.route_key,
        "rawPath": path,
        "rawQueryString": query,
        "headers": lowered,
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "local",
            "domainName": lowered.get("host", "localhost"),
            "domainPrefix": "localhost",
            "http": {
                "method": method.upper(),
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": lowered.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": route.route_key,
            "stage": "$default",
            "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(time.time() * 1000),
        },
        "isBase64Encoded": not is_text,
    }
    if query:
        event["queryStringParameters"] = dict(parse_qsl(query))
    if path_parameters:
        event["pathParameters"] = path_parameters
    if raw:
        event["body"] = text if is_text else base64.b64encode(raw).decode()
    return event
