// Shapes of docs/api.md (pkg/api/views.go): every field the server always
// sends is required here. Where the spec has a page default what is missing
// (the home figures to 0, the log samplings to 0.3, a thread without
// messages), that page reads the answer through Lenient<T> instead.

export type PostSource = 'conversation' | 'mention' | 'profile' | 'targeted';
export type PostStatus =
  | 'drafting'
  | 'pending'
  | 'approved'
  | 'awaiting_manual'
  | 'posted'
  | 'rejected'
  | 'failed'
  | 'skipped';

/** How an approved reply goes out: through the API, or posted by hand on X. */
export type ReplyRoute = 'api' | 'manual';

/** A post as the admin lists, approve and reject answer it. */
export interface Post {
  id: number;
  source: PostSource;
  status: PostStatus;
  /** "" for a profile post. */
  original_post_id: string;
  original_post_text: string;
  original_post_user: string;
  /** Without the @. */
  author_username: string;
  /** May be "". */
  author_profile_image: string;
  created_at: string;
  /** One of the seven sins, "" before drafting. */
  category: string;
  /** May be "". */
  media_url: string;
  likes_count: number;
  retweets_count: number;
  replies_count: number;
  engagement_score: number;
  age_seconds: number;
  proposed_response: string;
  is_mention: boolean;
  is_profile_tweet: boolean;
  temperature: number;
  presence_penalty: number;
  frequency_penalty: number;
  /** RFC 3339 once posted. */
  posted_at: string | null;
  response_post_id: string;
  /** The platform's or writer's message when failed, else "". */
  error: string;
  /** null for a profile post. */
  reply_route: ReplyRoute | null;
  /** What sending the response through the API costs; 0 for a hand-posted reply. */
  estimated_cost_usd: number;
  /** The response holds a link, which makes the post the dearer kind. */
  response_has_link: boolean;
  /** X's web intent for hand-posting, while awaiting_manual; else null. */
  intent_url: string | null;
  /** "queued: cap" while the send caps hold an approved post; else null (absent from older answers). */
  queued?: string | null;
  /** While an auto-approval waits out its grace window: when it goes out (RFC 3339); else null (absent from older answers). */
  send_after?: string | null;
  /** The outbound check's findings on the draft (link, foreign_mention, placeholder, secret, near_duplicate). */
  flags: string[];
  /** Which guard skipped the post; "" unless skipped. */
  reason: string;
  /** The persona version the draft was written with; null when unknown (drafted before versions, or not drafted). */
  persona_version: number | null;
  /** The judge's verdict on the draft; null while unjudged or when the judge failed. */
  review: PostReview | null;
}

/** The judge's verdict on a draft. */
export interface PostReview {
  /** 1 (worst) to 5 (best). */
  score: number;
  /** One line. */
  reason: string;
  /** "offline" for the rule-based judge, else the model's name. */
  by: string;
}

/** The reply, send and near-duplicate caps of the settings. */
export interface SettingsCaps {
  per_conversation: number;
  per_author_per_day: number;
  sends_per_3h: number;
  sends_per_day: number;
  near_duplicate: number;
  /** How many posts up the thread a draft reads (1 to 20). */
  context_depth: number;
  /** Drafts the judge scores below it are skipped with its reason (0 = off, up to 5). */
  min_review_score: number;
}

/** The autopilot's rules: approving a new pending draft without a person (off by default). */
export interface Autopilot {
  enabled: boolean;
  /** 1 to 5; an unjudged draft never qualifies. */
  min_review_score: number;
  /** Trusted handles. */
  authors: string[];
  any_author: boolean;
  /** Among the seven sins; empty: any. */
  categories: string[];
  /** 0 to 100 auto-approvals in any hour, cancelled ones included. */
  max_per_hour: number;
  /** 0 to 3600: the wait before the send, in which it may be cancelled. */
  grace_seconds: number;
}

/** Whom the persona answers and how often (GET and PUT /api/settings). */
export interface Settings {
  target_usernames: string[];
  search_topics: string[];
  blocked_authors: string[];
  blocked_phrases: string[];
  caps: SettingsCaps;
  /** Absent from a PUT: the stored rules stay. */
  autopilot?: Autopilot;
}

/** The persona's fields as the admin edits them (PUT /api/persona, and a preview's unsaved persona). */
export interface PersonaInput {
  name: string;
  bio: string;
  voice: string;
  examples: string[];
  avoid_topics: string[];
}

/** One stored version of the persona (GET and PUT /api/persona). */
export interface Persona extends PersonaInput {
  version: number;
  /** RFC 3339. */
  updated_at: string;
}

/** Every stored version, newest first (GET /api/persona/versions). */
export interface PersonaVersions {
  versions: Persona[];
}

/** What the writer would answer a post with (POST /api/persona/preview). */
export interface PersonaPreview {
  response: string;
  category: string;
}

/** How a post of a draft's conversation stands to the post answered. */
export type ConversationRelation = 'ancestor' | 'parent' | 'quoted' | 'persona';

/** One post of the conversation a draft read. */
export interface ConversationItem {
  relation: ConversationRelation;
  /** Without the @. */
  author_username: string;
  text: string;
  /** RFC 3339, or null when unknown. */
  created_at: string | null;
  platform_post_id: string;
}

/** The conversation of a post (GET /api/posts/{id}/context): the thread oldest first, the quoted post last. */
export interface Conversation {
  items: ConversationItem[];
  /** What the draft could not see, as a sentence; "" when it saw everything. */
  note: string;
}

/** What the persona costs (GET /api/spend). */
export interface Spend {
  today: { x_usd: number; model_usd: number };
  month: { x_usd: number; model_usd: number };
  projection_usd: number;
  /** Ceilings in USD; null when none. */
  budget: {
    daily_usd: number | null;
    monthly_usd: number | null;
    model_daily_usd: number | null;
    model_monthly_usd: number | null;
  };
  by_endpoint: { endpoint: string; calls: number; resources: number; usd: number }[];
  by_model: { model: string; prompt_tokens: number; completion_tokens: number; usd: number }[];
  windows: { endpoint: string; limit: number; remaining: number; reset_at: string; open: boolean }[];
  paused: { reason: string; since: string; until: string | null } | null;
  /** Per timeline: what the scans left for later (open gaps, reads put off for the budget) or gave up. */
  backlog: {
    platform: string;
    timeline: string;
    open_gaps: number;
    skipped_reads: number;
    dropped_gaps: number;
    last_reason: string;
  }[];
  /** How the send caps stand: sends of the last 3 and 24 hours, the caps, and the approvals they hold (absent from older servers). */
  sends?: { last_3h: number; last_24h: number; cap_3h: number; cap_24h: number; queued: number };
}

/** A successful login. */
export interface LoginAnswer {
  token: string;
  expires_at: string;
}

/** The answer of a request the workers will carry out (202). */
export interface Queued {
  status: 'queued';
}

/** The featured latest posted response (GET /api/public/latest). */
export interface LatestPost {
  id: number;
  proposed_response: string;
  original_post_text: string;
  original_post_user: string;
  author_username: string;
  category: string;
  is_mention: boolean;
  is_profile_tweet: boolean;
  posted_at: string | null;
}

/** One page of an admin list. */
export interface PostList {
  posts: Post[];
  pagination: { page: number; pageSize: number; total: number; totalPages: number };
}

export interface AdminStats {
  pending: { count: number };
  posted: { count: number };
  rejected: { count: number };
  mentions: { count: number };
}

export interface PostedCategory {
  category: string;
  count: number;
  last_24h: number;
}

export interface PendingCategory {
  category: string;
  count: number;
}

export interface HomeStats {
  posted_sins: number;
  pending_sins: number;
  success_rate: number;
  categories: { posted: PostedCategory[]; pending: PendingCategory[] };
  /** timestamp is absent before the first metrics refresh. */
  engagement: { total: number; likes: number; retweets: number; replies: number; timestamp?: string };
  mortal_interactions: {
    total_mentions: number;
    total_replies: number;
    mentions_24h: number;
    replies_24h: number;
  };
}

export interface PublicStats {
  stats: HomeStats;
  memorable_quotes: string[];
}

/** One posted reply (or broadcast) of a log thread. */
export interface LogMessage {
  id: number;
  /** "" for a broadcast. */
  original_post_id: string;
  original_post_text: string;
  original_post_user: string;
  author_username: string;
  proposed_response: string;
  category: string;
  timestamp: string;
  temperature: number;
  presence_penalty: number;
  frequency_penalty: number;
}

export type ThreadType = 'MORTAL_INTERACTION' | 'CONSCIOUSNESS_BROADCAST';

export interface LogThread {
  id: number;
  type: ThreadType;
  latestTimestamp: string;
  messages: LogMessage[];
}

export interface LogsPage {
  threads: LogThread[];
  pagination: { offset: number; limit: number; hasMore: boolean };
}

export type SortBy = 'date' | 'engagement' | 'likes' | 'retweets' | 'replies';

/**
 * T with every field, at any depth, possibly missing: how a page reads an
 * answer whose missing values the spec tells it to default.
 */
export type Lenient<T> = T extends (infer E)[]
  ? Lenient<E>[]
  : T extends object
    ? { [K in keyof T]?: Lenient<T[K]> }
    : T;
