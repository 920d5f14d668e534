-- Local development data (applied by `rails db --seed` and `make dev`, and by `supabase db reset`).
-- One development user and three rules that the event fixtures in events/ refer to.

INSERT INTO auth.users (id, email)
VALUES ('00000000-0000-4000-8000-000000000001', 'dev@persona-rails.local')
ON CONFLICT (id) DO NOTHING;

INSERT INTO public.rules
  (id, user_id, app_identifier, app_display_name, summary, daily_quota_minutes, next_action, remaining_minutes, delay_minutes)
VALUES
  ('11111111-1111-4111-8111-111111111111', '00000000-0000-4000-8000-000000000001',
   'com.ss.android.ugc.aweme', '抖音', '工作日 9:00-18:00 禁止刷短视频，每天最多 30 分钟', 30, '写周报', 45, 10),
  ('22222222-2222-4222-8222-222222222222', '00000000-0000-4000-8000-000000000001',
   'com.tencent.mm', '微信', '学习时段每天最多 60 分钟社交，晚上 22 点后不再打开', 60, '读完英语文章', 25, 5),
  ('33333333-3333-4333-8333-333333333333', '00000000-0000-4000-8000-000000000001',
   'com.google.android.youtube', 'YouTube', 'Weekdays: at most 20 minutes of video before the work is done', 20, '做完代码评审', 60, 15)
ON CONFLICT (id) DO NOTHING;

-- A memoir interview at its opening turn, for the events/interview-turn/ fixtures (turn-*.json,
-- get.json). Its engine state is what `POST /interview/sessions` stores for this plan. Loading the
-- seed again starts it over, so the fixtures can be replayed: turn, turn-vague, turn-refusal, turn-stop.
DELETE FROM public.interview_sessions WHERE id = '5e551011-0000-4000-8000-000000000001';
INSERT INTO public.interview_sessions
  (id, user_id, narrator_name, language, locale, topic_plan, sensitive_consent, topic_id, engine_state,
   last_response_text, config_version, start_fingerprint)
VALUES
  ('5e551011-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000001', 'Margaret', 'en', 'en-US',
   '[{"topic_id": "childhood", "title": "your childhood", "sensitive": false, "max_depth": null, "max_escalations": null}, {"topic_id": "first_job", "title": "your first job", "sensitive": false, "max_depth": null, "max_escalations": null}, {"topic_id": "family", "title": "your family", "sensitive": true, "max_depth": null, "max_escalations": null}]', false, 'childhood',
   '{"language": "en", "narrator_name": "Margaret", "locale": "en-US", "topic_plan": [{"topic_id": "childhood", "title": "your childhood", "sensitive": false, "max_depth": null, "max_escalations": null}, {"topic_id": "first_job", "title": "your first job", "sensitive": false, "max_depth": null, "max_escalations": null}, {"topic_id": "family", "title": "your family", "sensitive": true, "max_depth": null, "max_escalations": null}], "sensitive_consent": false, "topic_id": "childhood", "topics": {"childhood": {"depth": 0, "escalations": 0, "facts": [], "clarified": []}}, "turn_no": 0, "last_increase": false, "loop": null, "closed": false}',
   'Hello Margaret, thank you for sitting down with me. Let''s begin gently with your childhood. Where would you like to start?', 'seed', 'seed')
ON CONFLICT (id) DO NOTHING;

INSERT INTO public.interview_turns
  (id, session_id, user_id, turn_no, topic_id, persona_used, conversation_phase, depth_level_before,
   depth_level_after, tactic_used, safety_action, metrics, response_text, winning_rule, depth_decision,
   depth_reason, telemetry, source, latency_ms, config_version, engine_version)
VALUES
  ('5e551011-0000-4000-8000-0000000000a0', '5e551011-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000001', 0,
   'childhood', 'EMPATHY_BASE', 'warmup', 0, 0, 'warm_open', 'none',
   '{"response_tokens": 25, "question_count": 1, "question_tokens_mean": 7.0}',
   'Hello Margaret, thank you for sitting down with me. Let''s begin gently with your childhood. Where would you like to start?', 'opening', 'hold', 'opening', '{"routing": {"winning_rule": "opening", "planned_persona": "EMPATHY_BASE", "answered_topic_id": "childhood", "topic_changed": false}, "depth": {"before": 0, "after": 0, "decision": "hold", "reason": "opening", "max_depth": null, "max_escalations": null, "escalations_used": 0}, "safety": {"action": "none", "hard_stop": null, "violated_rule_ids": [], "constraints_attached": ["NC-DIAG-01", "NC-COERCE-01", "NC-LEAD-01", "NC-MONO-01", "PG-QDENSITY-01", "PG-THERAPY-01"], "step_sideways_offered": false, "crisis_guidance": false}, "verbosity": {"response_tokens": 25, "question_count": 1, "question_tokens_mean": 7.0, "sentence_count": 3, "question_density": 0.33, "target_ratio": 0.71}, "loop": {"state": null, "steps_executed": 0, "capped": false}}', 'offline', 0, 'seed', 'interview-1')
ON CONFLICT (id) DO NOTHING;
