// The insights feature: the funnel, latencies, daily figures, the judge's
// calibration, the heatmap and the lookup. Other code imports it from here only.
import { lazy } from 'react';

/** The insights section, loaded when first shown. */
export const InsightsPage = lazy(() => import('./InsightsPage'));
