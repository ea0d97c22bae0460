// Shapes of docs/api.md. Fields the server may leave out are optional, and
// the pages default them (numbers to 0).

export type PostSource = 'conversation' | 'mention' | 'profile' | 'targeted';
export type PostStatus = 'drafting' | 'pending' | 'approved' | 'posted' | 'rejected' | 'failed';

export interface Post {
  id: number;
  source?: PostSource;
  status?: PostStatus;
  original_post_id?: string;
  original_post_text?: string;
  original_post_user?: string;
  author_username?: string;
  author_profile_image?: string;
  created_at?: string;
  category?: string;
  media_url?: string;
  likes_count?: number;
  retweets_count?: number;
  replies_count?: number;
  engagement_score?: number;
  age_seconds?: number;
  proposed_response?: string;
  is_mention?: boolean;
  is_profile_tweet?: boolean;
  temperature?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  posted_at?: string | null;
  response_post_id?: string;
  error?: string;
}

export interface PostList {
  posts: Post[];
  pagination: { page?: number; pageSize?: number; total?: number; totalPages?: number };
}

export interface AdminStats {
  pending?: { count?: number };
  posted?: { count?: number };
  rejected?: { count?: number };
  mentions?: { count?: number };
}

export interface CategoryCount {
  category: string;
  count?: number;
  last_24h?: number;
}

export interface HomeStats {
  posted_sins?: number;
  pending_sins?: number;
  success_rate?: number;
  categories?: { posted?: CategoryCount[]; pending?: CategoryCount[] };
  engagement?: { total?: number; likes?: number; retweets?: number; replies?: number; timestamp?: string };
  mortal_interactions?: {
    total_mentions?: number;
    total_replies?: number;
    mentions_24h?: number;
    replies_24h?: number;
  };
}

export interface PublicStats {
  stats?: HomeStats;
  memorable_quotes?: string[];
}

export interface LogMessage {
  id?: number;
  original_post_id?: string;
  original_post_text?: string;
  original_post_user?: string;
  author_username?: string;
  proposed_response?: string;
  category?: string;
  timestamp?: string;
  temperature?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
}

/** A thread as the server sends it: without messages it is itself the one message. */
export interface RawThread extends LogMessage {
  type?: string;
  latestTimestamp?: string;
  messages?: LogMessage[];
}

export interface LogsPage {
  threads: RawThread[];
  pagination?: { offset?: number; limit?: number; hasMore?: boolean };
}

export type SortBy = 'date' | 'engagement' | 'likes' | 'retweets' | 'replies';
