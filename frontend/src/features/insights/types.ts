// The answers of GET /api/insights and GET /api/mentions/lookup.

export interface Funnel {
  seen: number;
  waiting: number;
  skipped: Record<string, number>;
  drafted: number;
  pending: number;
  approved: number;
  approved_by_autopilot: number;
  edited: number;
  rejected: number;
  sending: number;
  posted: number;
  awaiting_hand_post: number;
  failed: number;
}

export interface Latency {
  p50: number | null;
  p95: number | null;
  n: number;
}

export interface PersonaVersionFigures {
  version: number;
  drafts: number;
  approved: number;
  rejected: number;
  approval_rate: number | null;
  edit_rate: number | null;
  mean_review_score: number | null;
  measured: number;
  mean_engagement: number | null;
}

export interface JudgeFigures {
  score: number;
  drafts: number;
  approved: number;
  rejected: number;
  approved_share: number | null;
  measured: number;
  mean_engagement: number | null;
}

export interface DayFigures {
  day: string;
  mentions: number;
  posted: number;
  x_usd: number;
  model_usd: number;
  cost_per_post: number | null;
  measured: number;
  likes: number;
  reposts: number;
  replies: number;
}

export interface MetricGap {
  reason: string;
  from: string;
  to: string | null;
}

export interface Insights {
  days: number;
  from: string;
  to: string;
  source: string;
  tz: string;
  funnel: Funnel;
  latency: {
    mention_to_draft: Latency;
    draft_to_decision: Latency;
    decision_to_posted: Latency;
    mention_to_posted: Latency;
  };
  persona_versions: PersonaVersionFigures[];
  judge: JudgeFigures[];
  heatmap: {
    tz: string;
    seen: number[][];
    engagement: (number | null)[][];
    measured: number[][];
    weekdays: string[];
    hours: number[];
  };
  daily: DayFigures[];
  gaps: MetricGap[];
}

export type Lookup =
  | {
      seen: true;
      platform_post_id: string;
      status: string;
      reason: string;
      seen_at: string;
      post_id: number | null;
    }
  | {
      seen: false;
      platform_post_id: string;
      last_scan_at: string | null;
      newest_id: string;
    };
