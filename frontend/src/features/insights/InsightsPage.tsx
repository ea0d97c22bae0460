import { InsightsPanel } from './InsightsPanel';

/** The Insights section: the funnel, latencies, daily figures, persona versions, the judge, the heatmap and the lookup. */
export default function InsightsPage() {
  return <InsightsPanel />;
}
