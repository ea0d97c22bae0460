// The persona feature: the persona's editor, preview and versions. Other
// code imports it from here only.
import { lazy } from 'react';

/** The persona section, loaded when first shown. */
export const PersonaPage = lazy(() => import('./PersonaPage'));
