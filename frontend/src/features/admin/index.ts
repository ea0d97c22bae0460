// The admin feature: the guarded area, its navigation and its sections.
// Other code imports it from here only.
import { lazy } from 'react';

/** The admin area, loaded when the admin first enters it. */
export const AdminArea = lazy(() => import('./AdminArea'));
