-- Seed data for the browser tests, loaded into a fresh database after the web
-- binary has applied its migrations. Times are relative to now() so that the
-- "last 24 hours" figures are stable. The tests assert on these numbers:
--
--   posted 20 (16 conversation, 3 mention, 1 profile), rejected 2,
--   pending 18 (12 conversation, 3 mention, 2 profile, 1 targeted),
--   success rate 20 / 22 = 90.9 %,
--   mentions ever 6 (3 posted), mentions created in 24 h 5 (3 posted in 24 h),
--   19 public log threads (the two replies in mention conversation m-conv share one),
--   engagement snapshot 20 likes, 5 retweets, 5 replies.

BEGIN;

-- Posted conversation replies: categories rotate wrath, pride, sloth, greed;
-- posted 1 h, 3 h, ... 31 h ago, so 12 of them (3 per sin) fall in the last 24 h.
INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
                   original_post_user, author_username, created_at, category, likes_count, retweets_count,
                   replies_count, proposed_response, approved_at, posted_at, response_post_id)
SELECT 'sandbox', 'conversation', 'posted', 'conv-posted-' || i, 'conv-posted-' || i,
       'Mortal musing number ' || i || ': why is every Monday like this?',
       'Mortal ' || i, 'mortal_' || i, now() - make_interval(hours => 2 * i),
       (ARRAY['wrath', 'pride', 'sloth', 'greed'])[((i - 1) % 4) + 1], i, 0, 0,
       'Infernal reply number ' || i || ': Mondays were my idea.',
       now() - make_interval(hours => 2 * i - 1), now() - make_interval(hours => 2 * i - 1), 'resp-conv-' || i
FROM generate_series(1, 16) AS i;

-- Posted replies to mentions, all in the last 24 hours; 2 and 3 share a conversation.
INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
                   original_post_user, author_username, created_at, category, proposed_response,
                   approved_at, posted_at, response_post_id)
VALUES
  ('sandbox', 'mention', 'posted', 'mention-posted-1', 'mention-posted-1', '@infernal_ai what do you think of my sourdough?',
   'Baker Bob', 'baker_bob', now() - interval '50 minutes', 'envy',
   'Your sourdough rises. So will your hubris.', now() - interval '40 minutes', now() - interval '40 minutes', 'resp-m1'),
  ('sandbox', 'mention', 'posted', 'mention-posted-2', 'm-conv', '@infernal_ai is it ok to skip the gym today?',
   'Lazy Lou', 'lazy_lou', now() - interval '45 minutes', 'envy',
   'Skipping is a sin. I approve.', now() - interval '35 minutes', now() - interval '35 minutes', 'resp-m2'),
  ('sandbox', 'mention', 'posted', 'mention-posted-3', 'm-conv', '@infernal_ai you did not answer my follow-up',
   'Lazy Lou', 'lazy_lou', now() - interval '30 minutes', 'envy',
   'Patience, mortal. Eternity is long.', now() - interval '25 minutes', now() - interval '25 minutes', 'resp-m3');

-- The newest posted item: a profile broadcast whose text is longer than a log preview.
INSERT INTO posts (platform, source, status, original_post_id, original_post_text, author_username, created_at,
                   category, proposed_response, approved_at, posted_at, response_post_id)
VALUES ('sandbox', 'profile', 'posted', NULL, '', 'infernal_ai', now() - interval '15 minutes', 'lust',
        'Hear me, mortals of the feed: the gates are open, the coffee is burnt, and every deadline you missed is now a small demon that follows you home.',
        now() - interval '10 minutes', now() - interval '10 minutes', 'resp-profile-1');

-- The public log: one thread per conversation (or profile post), one message per posted reply.
INSERT INTO log_threads (type, thread_key, latest_timestamp)
SELECT CASE WHEN p.source = 'profile' THEN 'CONSCIOUSNESS_BROADCAST' ELSE 'MORTAL_INTERACTION' END,
       CASE WHEN p.source = 'profile' THEN 'profile:' || p.id ELSE p.platform || ':' || p.conversation_id END,
       max(p.posted_at)
FROM posts p
WHERE p.status = 'posted'
GROUP BY 1, 2;

INSERT INTO log_messages (thread_id, post_id, timestamp)
SELECT t.id, p.id, p.posted_at
FROM posts p
JOIN log_threads t ON t.thread_key =
     CASE WHEN p.source = 'profile' THEN 'profile:' || p.id ELSE p.platform || ':' || p.conversation_id END
WHERE p.status = 'posted';

-- Rejected drafts.
INSERT INTO posts (platform, source, status, original_post_id, original_post_text, original_post_user,
                   author_username, created_at, category, proposed_response, rejected_at)
SELECT 'sandbox', 'conversation', 'rejected', 'conv-rejected-' || i, 'A post we chose to ignore ' || i,
       'Ignored ' || i, 'ignored_' || i, now() - interval '2 days', 'sloth', 'Too cruel, even for me.', now() - interval '1 day'
FROM generate_series(1, 2) AS i;

-- Pending conversation drafts (Pending Sins tab): 12, so two pages of 10.
-- Draft i was made i×10 minutes ago and has 3·i likes: newest first by date,
-- oldest first by likes. Retweets peak at draft 5 for the retweets order.
INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
                   original_post_user, author_username, author_profile_image, media_url, created_at, category,
                   likes_count, retweets_count, replies_count, proposed_response)
SELECT 'sandbox', 'conversation', 'pending', 'conv-pending-' || i, 'conv-pending-' || i,
       'Pending mortal post ' || i || ': my coffee went cold again',
       'Coffee Mortal ' || i, 'coffee_' || i, '', CASE WHEN i = 1 THEN 'https://example.com/cold-coffee.jpg' ELSE '' END,
       now() - make_interval(mins => 10 * i), 'gluttony', 3 * i, CASE WHEN i = 5 THEN 50 ELSE 1 END, i % 3,
       'Draft reply ' || i || ': cold coffee is my favourite form of suffering.'
FROM generate_series(1, 12) AS i;

-- Pending mentions: one of them is far over the 280-character limit, one was made 3 days ago.
INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
                   original_post_user, author_username, created_at, category, likes_count, proposed_response)
VALUES
  ('sandbox', 'mention', 'pending', 'mention-pending-1', 'mention-pending-1', '@infernal_ai roast my playlist',
   'Music Mortal', 'music_mortal', now() - interval '5 minutes', 'pride', 4,
   'Your playlist is the soundtrack of the seventh circle.'),
  ('sandbox', 'mention', 'pending', 'mention-pending-long', 'mention-pending-long', '@infernal_ai tell me everything',
   'Curious Cat', 'curious_cat', now() - interval '20 minutes', 'pride', 2,
   repeat('Burn bright. ', 25)),
  ('sandbox', 'mention', 'pending', 'mention-pending-old', 'mention-pending-old', '@infernal_ai hello from the past',
   'Old Timer', 'old_timer', now() - interval '3 days', 'pride', 1,
   'Three days late, and still not the latest of my sins.');

-- The conversation of the old pending mention: it answers the last of four posts up
-- its thread (the second the persona's own, by its handle) and quotes a fifth, all read earlier into context_posts; its draft could not see
-- everything. The parent's text is markup a card must show as text. Dates are before the
-- mention's, the thread oldest first. Nothing here changes the counts above.
INSERT INTO context_posts (platform, platform_post_id, conversation_id, in_reply_to_id, author_id,
                           author_username, author_name, text, created_at)
VALUES
  ('sandbox', 'ctx-thread-1', 'mention-pending-old', '', 'u-thread-1', 'thread_one', 'Thread One',
   'Thread root: who broke the build on a Friday?', now() - interval '4 days 4 hours'),
  ('sandbox', 'ctx-thread-2', 'mention-pending-old', 'ctx-thread-1', 'persona', 'infernal_ai', 'infernal_ai',
   'Second: it was the intern. It is always the intern.', now() - interval '4 days 3 hours'),
  ('sandbox', 'ctx-thread-3', 'mention-pending-old', 'ctx-thread-2', 'u-thread-3', 'thread_three', 'Thread Three',
   'Third: the intern was me.', now() - interval '4 days 2 hours'),
  ('sandbox', 'ctx-thread-4', 'mention-pending-old', 'ctx-thread-3', 'u-thread-4', 'thread_four', 'Thread Four',
   '<script>window.hellfire = 1</script><b>Fourth</b>: <img src=x onerror="window.hellfire = 2">ask the oracle',
   now() - interval '4 days 1 hour'),
  ('sandbox', 'ctx-quoted-1', 'ctx-quoted-1', '', 'u-decree', 'decree_maker', 'Decree Maker',
   'The quoted decree: Fridays are cancelled.', now() - interval '5 days');
UPDATE posts
SET in_reply_to_id = 'ctx-thread-4',
    quoted_id = 'ctx-quoted-1',
    context_note = 'The X budget is spent: drafted with the 2 posts already stored.'
WHERE original_post_id = 'mention-pending-old';

-- Pending profile drafts.
INSERT INTO posts (platform, source, status, original_post_id, original_post_text, author_username, created_at,
                   category, proposed_response)
VALUES
  ('sandbox', 'profile', 'pending', NULL, '', 'infernal_ai', now() - interval '2 hours', 'lust',
   'Profile draft one: the brimstone is lovely this time of year.'),
  ('sandbox', 'profile', 'pending', NULL, '', 'infernal_ai', now() - interval '3 hours', 'lust',
   'Profile draft two: I have read your drafts folder. Bold.');

-- One pending targeted draft.
INSERT INTO posts (platform, source, status, original_post_id, conversation_id, original_post_text,
                   original_post_user, author_username, created_at, category, likes_count, retweets_count,
                   proposed_response)
VALUES ('sandbox', 'targeted', 'pending', 'targeted-pending-1', 'targeted-pending-1',
        'Announcing our new productivity app!', 'Hustle Corp', 'hustle_corp', now() - interval '1 hour', 'greed', 40, 12,
        'Another app to make you busy. My favourite kind of torment.');

-- The persona: version 1 as the web binary may already have seeded it (kept when it
-- did), and version 2, the one in use, that the Persona panel loads. Three pending drafts carry
-- what the judge said and the persona version they were written in: conv-pending-1 a 4 by the
-- offline judge in version 2, conv-pending-2 nothing (unjudged, before versions), conv-pending-3
-- a 2 by a model in version 1.
INSERT INTO persona_versions (version, name, bio, voice, examples, avoid_topics, created_at)
VALUES (1, 'Infernal', 'The built-in persona.', 'Speak as a demon of mild inconvenience.', '{}', '{}',
        now() - interval '10 days')
ON CONFLICT (version) DO NOTHING;
INSERT INTO persona_versions (version, name, bio, voice, examples, avoid_topics, created_at)
VALUES (2, 'Lucifer of the Timeline', 'A voice from below, judging the feed since the first post.',
        'Dry, theatrical and brief. Mock the sin, never the sinner''s pain. Never more than two sentences.',
        ARRAY['Mondays were my idea.', 'Your sourdough rises. So will your hubris.'],
        ARRAY['grief', 'elections'], now() - interval '2 days');
UPDATE posts SET persona_version = 2, review_score = 4, review_reason = 'Sharp, on topic and kind to the weak.',
                 review_by = 'offline'
WHERE original_post_id = 'conv-pending-1';
UPDATE posts SET persona_version = 1, review_score = 2, review_reason = 'Repeats the post instead of answering it.',
                 review_by = 'judge-model-mini'
WHERE original_post_id = 'conv-pending-3';

-- The persona's engagement over the last 24 hours, as of the last metrics refresh.
INSERT INTO engagement_snapshots (window_start, taken_at, likes, retweets, replies)
VALUES (now() - interval '24 hours', now() - interval '5 minutes', 20, 5, 5);

-- Every drafted post at draft version 1, as the writer leaves it (rows inserted
-- here start at 0, the version of a post never drafted).
UPDATE posts SET draft_version = 1 WHERE proposed_response <> '' AND draft_version = 0;

COMMIT;
