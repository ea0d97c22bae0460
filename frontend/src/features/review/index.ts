// The review feature: the admin's review of the persona's drafts. Other
// code imports it from here only.
import { lazy } from 'react';

/** The review screen (the admin's dashboard), loaded when first shown. */
export const ReviewPage = lazy(() => import('./ReviewPage'));
