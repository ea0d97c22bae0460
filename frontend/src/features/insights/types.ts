// The answers of GET /api/insights and GET /api/mentions/lookup, as
// docs/openapi.yaml describes them (src/api/types.ts is generated from it).
import type { MentionSeen, MentionUnseen } from '../../api/types';

export type { DayFigures, Funnel, Insights, JudgeFigures, Latency, MetricGap, PersonaVersionFigures } from '../../api/types';

/** What became of one post: seen by a scan, or not. */
export type Lookup = MentionSeen | MentionUnseen;
