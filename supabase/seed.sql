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
