from tests.support.api import trigger_payload


def test_dialog_end_to_end(api, users):
    user = users.create()
    rule = users.rule(user)
    started = api.post("/intercept-session", user.token, trigger_payload(user.id, rule))
    assert started.status == 201, started.body
    sid = started.body["session_id"]
    turn = api.post(
        f"/intercept-session/{sid}/reason", user.token, {"reason_text": "就是有点无聊，想刷一会儿放松一下"}
    )
    assert turn.status == 200, turn.body
    assert turn.body["ai_verdict"] == "delay"
