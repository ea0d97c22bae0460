// The spend feature: what X and the model cost, the budgets, the windows and
// the operator's pause. Other code imports it from here only.
import { lazy } from 'react';

/** The spend section, loaded when first shown. */
export const SpendPage = lazy(() => import('./SpendPage'));

// The review screen shows the pauses and budgets above its tabs, lifts the
// pause, and reloads the spend after a decision.
export { resumeOps } from './api';
export { SpendBanners } from './SpendPanel';
export { SPEND_KEY, useSpend } from './useSpend';
